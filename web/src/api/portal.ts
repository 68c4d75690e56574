/** Portal calls: tokens, the signed-in user, the items they can see, upload, publish, delete. */
import type { RestClient } from "./client.js";
import { ApiError } from "./client.js";
import { portal, userContent } from "./endpoints.js";
import type { Item, SearchAnswer, Self, TokenAnswer } from "./types.js";

/** Minutes a token lasts: a working session; the server caps it. */
const TOKEN_MINUTES = 240;

/** A token bound to this page's origin (the browser sends the Referer with every request). */
export function generateToken(api: RestClient, username: string, password: string, origin: string): Promise<TokenAnswer> {
  return api.post<TokenAnswer>(`${portal(api.base)}/generateToken`, {
    username,
    password,
    client: "referer",
    referer: origin,
    expiration: TOKEN_MINUTES,
    token: undefined,
  });
}

export const self = (api: RestClient, token?: string) => api.get<Self>(`${portal(api.base)}/community/self`, token ? { token } : undefined);

/** Every item the user can see (the server sorts; 100 is plenty for a working set). */
export async function searchItems(api: RestClient, signal?: AbortSignal): Promise<Item[]> {
  const answer = await api.get<SearchAnswer>(`${portal(api.base)}/search`, { q: "", num: 100 }, signal);
  return answer.results;
}

export function deleteItem(api: RestClient, username: string, id: string): Promise<{ success: boolean }> {
  return api.post(`${userContent(api.base, username)}/items/${encodeURIComponent(id)}/delete`);
}

export interface PublishAnswer {
  services: { serviceurl: string; serviceItemId: string }[];
}

export function publishItem(api: RestClient, username: string, itemId: string, name: string): Promise<PublishAnswer> {
  return api.post<PublishAnswer>(`${userContent(api.base, username)}/publish`, {
    itemId,
    publishParameters: JSON.stringify({ name }),
  });
}

/**
 * Upload a raster file as an item (multipart), reporting progress in 0..1. XMLHttpRequest
 * because fetch cannot report upload progress.
 */
export function addItem(
  api: RestClient,
  username: string,
  fields: { file: File; title: string; tags: string },
  onProgress: (fraction: number) => void,
): Promise<{ success: boolean; id: string }> {
  const form = new FormData();
  // The token before the file: the server refuses a caller before storing a byte.
  for (const [k, v] of api.body()) form.set(k, v);
  form.set("filename", fields.file.name);
  form.set("title", fields.title);
  form.set("tags", fields.tags);
  form.set("file", fields.file, fields.file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${userContent(api.base, username)}/addItem`);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError("The upload failed: the server could not be reached.", 0, []));
    xhr.onload = () => {
      const response = new Response(xhr.responseText, { status: xhr.status });
      api.read<{ success: boolean; id: string }>(Promise.resolve(response)).then(resolve, reject);
    };
    xhr.send(form);
  });
}

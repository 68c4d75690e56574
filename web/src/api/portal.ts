/** Portal calls: tokens, the signed-in user, items (read, edit, share, move, upload, publish, delete) and folders. */
import type { RestClient } from "./client.js";
import { ApiError } from "./client.js";
import { portal, userContent } from "./endpoints.js";
import type { Access, Folder, Item, SearchAnswer, Self, TokenAnswer, UploadStatus, UserContent } from "./types.js";

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

export const getItem = (api: RestClient, id: string, signal?: AbortSignal) =>
  api.get<Item>(`${portal(api.base)}/content/items/${encodeURIComponent(id)}`, undefined, signal);

const itemUrl = (api: RestClient, owner: string, id: string) => `${userContent(api.base, owner)}/items/${encodeURIComponent(id)}`;

/** Change an item's title, description or tags (`clearEmptyFields` so an emptied description is emptied). */
export function updateItem(
  api: RestClient,
  owner: string,
  id: string,
  fields: { title: string; description: string; tags: readonly string[] },
): Promise<{ success: boolean }> {
  return api.post(`${itemUrl(api, owner, id)}/update`, {
    title: fields.title,
    description: fields.description,
    tags: fields.tags.join(","),
    clearEmptyFields: true,
  });
}

/** Share an item with no one else (private), the organisation, or everyone (public). */
export function shareItem(api: RestClient, owner: string, id: string, access: Access): Promise<{ itemId: string }> {
  return api.post(`${itemUrl(api, owner, id)}/share`, { everyone: access === "public", org: access !== "private" });
}

/** Move an item into one of its owner's folders, or to the root (null). */
export function moveItem(api: RestClient, owner: string, id: string, folderId: string | null): Promise<{ success: boolean }> {
  return api.post(`${itemUrl(api, owner, id)}/move`, { folder: folderId ?? "/" });
}

export const userContentOf = (api: RestClient, username: string, signal?: AbortSignal) =>
  api.get<UserContent>(userContent(api.base, username), undefined, signal);

export const createFolder = (api: RestClient, username: string, title: string) =>
  api.post<{ success: boolean; folder: Folder }>(`${userContent(api.base, username)}/createFolder`, { title });

/** Delete an empty folder (the server refuses one that holds items). */
export const deleteFolder = (api: RestClient, username: string, folderId: string) =>
  api.post<{ success: boolean }>(`${userContent(api.base, username)}/folders/${encodeURIComponent(folderId)}/delete`);

/** What an addItem or publish sent with `uploadId` is doing now. */
export const uploadStatus = (api: RestClient, username: string, uploadId: string) =>
  api.get<UploadStatus>(`${userContent(api.base, username)}/uploads/${encodeURIComponent(uploadId)}/status`);

export function deleteItem(api: RestClient, username: string, id: string): Promise<{ success: boolean }> {
  return api.post(`${userContent(api.base, username)}/items/${encodeURIComponent(id)}/delete`);
}

export interface PublishAnswer {
  services: { serviceurl: string; serviceItemId: string }[];
}

export function publishItem(api: RestClient, username: string, itemId: string, name: string, uploadId?: string): Promise<PublishAnswer> {
  return api.post<PublishAnswer>(`${userContent(api.base, username)}/publish`, {
    itemId,
    publishParameters: JSON.stringify({ name }),
    uploadId,
  });
}

/**
 * Upload a raster file as an item (multipart), reporting progress in 0..1. XMLHttpRequest
 * because fetch cannot report upload progress.
 */
export function addItem(
  api: RestClient,
  username: string,
  fields: { file: File; title: string; tags: string; uploadId?: string },
  onProgress: (fraction: number) => void,
): Promise<{ success: boolean; id: string }> {
  const form = new FormData();
  // The token before the file: the server refuses a caller before storing a byte.
  for (const [k, v] of api.body()) form.set(k, v);
  form.set("filename", fields.file.name);
  form.set("title", fields.title);
  form.set("tags", fields.tags);
  if (fields.uploadId) form.set("uploadId", fields.uploadId);
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

/** Add data: upload a NetCDF, HDF5, GeoTIFF or zipped Zarr file as an item, and publish it as a service. */
import { useState } from "preact/hooks";
import { addItem, publishItem } from "../api/portal.js";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";
import { SERVICE_NAME } from "../tasks/values.js";
import { suggestServiceName } from "./names.js";

export function Upload() {
  const { api, session, reloadItems, announce } = useApp();
  const [file, setFile] = useState<File>();
  const [title, setTitle] = useState("");
  const [tags, setTags] = useState("");
  const [publish, setPublish] = useState(true);
  const [name, setName] = useState("");
  const [progress, setProgress] = useState<number>();
  const [message, setMessage] = useState<{ text: string; error: boolean }>();

  function choose(f: File | undefined) {
    setFile(f);
    if (f) {
      setTitle(f.name.replace(/\.[A-Za-z0-9]+$/, ""));
      setName(suggestServiceName(f.name));
    }
  }

  async function submit(e: Event) {
    e.preventDefault();
    setMessage(undefined);
    if (!file) return setMessage({ text: "Choose a file.", error: true });
    if (publish && !SERVICE_NAME.test(name))
      return setMessage({ text: "A service name is letters, digits and underscores (at most 120).", error: true });
    setProgress(0);
    try {
      const added = await addItem(api, session.username, { file, title: title || file.name, tags }, setProgress);
      let text = `Uploaded ${file.name}.`;
      if (publish) {
        await publishItem(api, session.username, added.id, name);
        text = `Uploaded ${file.name} and published it as ${name}.`;
      }
      setMessage({ text, error: false });
      announce(text);
      (e.target as HTMLFormElement).reset();
      setFile(undefined);
      reloadItems();
    } catch (err) {
      setMessage({ text: errorText(err), error: true });
    } finally {
      setProgress(undefined);
    }
  }

  return (
    <form class="card upload" onSubmit={submit} aria-labelledby="upload-title">
      <h2 id="upload-title">Add data</h2>
      <label>
        Raster file (NetCDF, HDF5, GeoTIFF, or a zipped Zarr store)
        <input
          type="file"
          name="file"
          accept=".nc,.nc4,.cdf,.h5,.hdf,.hdf5,.he5,.tif,.tiff,.zip"
          onChange={(e) => choose(e.currentTarget.files?.[0])}
        />
      </label>
      <label>
        Title
        <input name="title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        Tags <span class="muted">(comma-separated)</span>
        <input name="tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
      </label>
      <label class="inline">
        <input type="checkbox" checked={publish} onChange={(e) => setPublish(e.currentTarget.checked)} /> Publish as an image service
      </label>
      {publish && (
        <label>
          Service name
          <input name="serviceName" value={name} autoComplete="off" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
      )}
      {progress !== undefined && <progress max={1} value={progress} aria-label="Upload progress" />}
      <p class={message?.error ? "error" : "ok"} role="status">
        {message?.text}
      </p>
      <button type="submit" class="primary" disabled={progress !== undefined}>
        Upload
      </button>
    </form>
  );
}

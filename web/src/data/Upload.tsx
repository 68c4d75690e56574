/**
 * Add data: upload a NetCDF, HDF5, GeoTIFF or zipped Zarr file as an item, and publish it as
 * a service. While the bytes go the bar shows them; then the server's own words say what it
 * does (checking the file, converting, publishing) with the time it has taken so far.
 */
import { useState } from "preact/hooks";
import { addItem, publishItem } from "../api/portal.js";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";
import { formatDuration } from "../format.js";
import { SERVICE_NAME } from "../tasks/values.js";
import { suggestServiceName } from "./names.js";
import { newUploadId, useServerPhase } from "./useServerPhase.js";

export function Upload() {
  const { api, session, reloadItems, announce } = useApp();
  const [file, setFile] = useState<File>();
  const [title, setTitle] = useState("");
  const [tags, setTags] = useState("");
  const [publish, setPublish] = useState(true);
  const [name, setName] = useState("");
  const [progress, setProgress] = useState<number>();
  const [message, setMessage] = useState<{ text: string; error: boolean }>();
  const server = useServerPhase();

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
      const adding = newUploadId();
      const added = await addItem(api, session.username, { file, title: title || file.name, tags, uploadId: adding }, (fraction) => {
        setProgress(fraction);
        // Every byte sent: from here the server works on the file.
        if (fraction >= 1) server.watch(adding);
      });
      let text = `Uploaded ${file.name}.`;
      if (publish) {
        const publishing = newUploadId();
        server.watch(publishing);
        await publishItem(api, session.username, added.id, name, publishing);
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
      server.stop();
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
      {progress !== undefined && (
        <div class="upload-progress" data-phase={server.phase ? "server" : "sending"}>
          {/* Indeterminate while the server works: its steps have no byte count. */}
          <progress max={1} value={server.phase ? undefined : progress} aria-label="Upload progress" />
          <p class="muted" data-upload-phase>
            {server.phase
              ? `${server.phase.text ?? "Waiting for the server"}… ${formatDuration(server.elapsedMs)}`
              : `Sending ${file?.name ?? "the file"}: ${Math.round(progress * 100)}%`}
          </p>
        </div>
      )}
      <p class={message?.error ? "error" : "ok"} role="status">
        {message?.text}
      </p>
      <button type="submit" class="primary" disabled={progress !== undefined}>
        Upload
      </button>
    </form>
  );
}

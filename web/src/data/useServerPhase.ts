/**
 * What the server is doing with a request sent with an uploadId (checking a file, converting
 * it, publishing), polled while the request runs, with how long it has been at it, so the
 * upload says more than "100 %" while the server works.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { uploadStatus } from "../api/portal.js";
import { useApp } from "../app/context.js";

const POLL_MS = 500;

export interface ServerPhase {
  /** The server's own words, once it has said any. */
  text?: string;
  /** When the request was handed to the server (epoch ms). */
  since: number;
}

export function useServerPhase() {
  const { api, session } = useApp();
  const [phase, setPhase] = useState<ServerPhase>();
  const [now, setNow] = useState(Date.now());
  const timer = useRef<number>();
  const watching = useRef<string>();

  const stop = useCallback(() => {
    watching.current = undefined;
    window.clearTimeout(timer.current);
    setPhase(undefined);
  }, []);

  /** Follow the request sent with `uploadId` until `stop`. */
  const watch = useCallback(
    (uploadId: string) => {
      if (watching.current === uploadId) return;
      window.clearTimeout(timer.current);
      watching.current = uploadId;
      setPhase({ since: Date.now() });
      const poll = () =>
        uploadStatus(api, session.username, uploadId)
          .then(
            (s) => watching.current === uploadId && s.status === "processing" && setPhase((p) => p && { ...p, text: s.statusMessage }),
            // Not known yet (the bytes are still being stored): ask again.
            () => undefined,
          )
          .finally(() => {
            if (watching.current === uploadId) timer.current = window.setTimeout(poll, POLL_MS);
          });
      timer.current = window.setTimeout(poll, 0);
    },
    [api, session.username],
  );

  // The elapsed time moves while the server works.
  useEffect(() => {
    if (!phase) return;
    const tick = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(tick);
  }, [phase !== undefined]);
  useEffect(() => stop, [stop]);

  return { phase, elapsedMs: phase ? Math.max(0, now - phase.since) : 0, watch, stop };
}

/** A random id for one request's status (letters, digits and '-'). */
export const newUploadId = () => crypto.randomUUID();

import { useEffect, useRef, useState } from "preact/hooks";
import { streamUrl } from "../lib/api.ts";
import { formatDuration, kindOf, messageOf } from "../lib/format.ts";
import { getPosition, savePosition } from "../lib/playback.ts";
import type { FileRec } from "../lib/types.ts";

const SAVE_EVERY_MS = 5000;

/**
 * Audio or video straight from /files/:id/stream (byte ranges, so seeking
 * works on large files), through a short-lived link since a media element
 * cannot send the Authorization header. Resumes at the saved position and
 * saves it while playing, on pause, on seek and when the page goes away.
 */
export function MediaPlayer({ f }: { f: FileRec }) {
  const ref = useRef<HTMLVideoElement & HTMLAudioElement>(null);
  const [src, setSrc] = useState<string>();
  const [resumeAt, setResumeAt] = useState<number>();
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let alive = true;
    setSrc(undefined);
    setNote(undefined);
    Promise.all([streamUrl(f.id, "stream"), getPosition(f.id).catch(() => undefined)])
      .then(([url, pos]) => {
        if (!alive) return;
        const p = pos?.position_seconds ?? 0;
        const d = pos?.duration_seconds || 0;
        // Finished (within 5% of the end) or barely started: start from the top.
        setResumeAt(p >= 2 && (!d || p < d * 0.95) ? p : undefined);
        setSrc(url);
      })
      .catch((e) => alive && setError(messageOf(e)));
    return () => {
      alive = false;
    };
  }, [f.id]);

  useEffect(() => {
    const el = ref.current;
    if (!el || !src) return;
    let last = 0;
    const save = (force = false, keepalive = false) => {
      if (!el.duration || (!force && Date.now() - last < SAVE_EVERY_MS)) return;
      last = Date.now();
      void savePosition(f.id, el.currentTime, el.duration, keepalive);
    };
    let resumed = false;
    const onMeta = () => {
      if (!resumed && resumeAt !== undefined && resumeAt < el.duration) {
        resumed = true;
        el.currentTime = resumeAt;
        setNote(`Resumed at ${formatDuration(resumeAt)}`);
      }
    };
    const onTime = () => save();
    const onPause = () => save(true);
    const onEnded = () => save(true);
    const onLeave = () => save(true, true);
    el.addEventListener("loadedmetadata", onMeta);
    // A small file may have its metadata before this effect runs: resume now then.
    if (el.readyState >= 1) onMeta();
    el.addEventListener("timeupdate", onTime);
    el.addEventListener("pause", onPause);
    el.addEventListener("seeked", onPause);
    el.addEventListener("ended", onEnded);
    window.addEventListener("pagehide", onLeave);
    return () => {
      onLeave();
      el.removeEventListener("loadedmetadata", onMeta);
      el.removeEventListener("timeupdate", onTime);
      el.removeEventListener("pause", onPause);
      el.removeEventListener("seeked", onPause);
      el.removeEventListener("ended", onEnded);
      window.removeEventListener("pagehide", onLeave);
    };
  }, [src, f.id, resumeAt]);

  if (error) return <p class="error">Cannot play this file: {error}</p>;
  const video = kindOf(f) === "video";
  return (
    <div class={`player ${video ? "player-video" : "player-audio"}`}>
      {src ? (
        video ? (
          // biome-ignore lint/a11y/useMediaCaption: household media rarely has caption tracks
          <video ref={ref} src={src} controls autoplay playsInline preload="metadata" aria-label={f.name} />
        ) : (
          // biome-ignore lint/a11y/useMediaCaption: audio
          <audio ref={ref} src={src} controls autoplay preload="metadata" aria-label={f.name} />
        )
      ) : (
        <p class="muted">Loading…</p>
      )}
      {note ? (
        <p class="resume-note" role="status">
          {note}{" "}
          <button
            type="button"
            class="link"
            onClick={() => {
              if (ref.current) ref.current.currentTime = 0;
              setNote(undefined);
            }}
          >
            Start over
          </button>
        </p>
      ) : null}
    </div>
  );
}

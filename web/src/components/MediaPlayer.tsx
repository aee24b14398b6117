import type Hls from "hls.js";
import { useEffect, useRef, useState } from "preact/hooks";
import { formatDuration, kindOf, messageOf } from "../lib/format.ts";
import { getPosition, loadChoice, playbackInfo, saveChoice, savePosition } from "../lib/playback.ts";
import { toast } from "../lib/toast.ts";
import type { FileRec, PlaybackInfo } from "../lib/types.ts";

const SAVE_EVERY_MS = 5000;

/**
 * Why a media element stopped, in words: a media element only says "error",
 * so ask the server with a one-byte range what it answers for the same link.
 */
async function explainFailure(el: HTMLMediaElement, url: string): Promise<string> {
  const code = el.error?.code;
  try {
    const res = await fetch(url, { headers: { Range: "bytes=0-0" } });
    if (res.status === 429) {
      const wait = res.headers.get("Retry-After");
      return `the server is limiting requests right now${wait ? `; try again in ${wait} s` : ""}.`;
    }
    if (res.status === 401 || res.status === 403)
      return "the link expired or your access was removed. Retry to get a fresh link.";
    if (res.status === 404) return "the file is gone (moved to the trash, or its drive is unplugged).";
    if (res.status >= 500) return "the server could not read the file (its drive may be offline).";
  } catch {
    return "the connection to the server was lost.";
  }
  if (code === 4 || code === 3) {
    return "this browser cannot decode this file's format. Download it, or open it in a player such as VLC.";
  }
  return "playback was interrupted.";
}

type AudioTrack = PlaybackInfo["audio"][number];
type Subtitle = PlaybackInfo["subtitles"][number];

const LANGUAGES =
  typeof Intl !== "undefined" && "DisplayNames" in Intl
    ? new Intl.DisplayNames(undefined, { type: "language" })
    : undefined;

/** "French", "English (SDH)": a track's language in words, with its title. */
function languageName(code?: string): string | undefined {
  if (!code) return undefined;
  try {
    return LANGUAGES?.of(code) ?? code;
  } catch {
    return code;
  }
}

function audioLabel(a: AudioTrack, i: number): string {
  const name = a.title ?? languageName(a.language) ?? `Track ${i + 1}`;
  const ch = a.channels === 1 ? "mono" : a.channels === 2 ? "stereo" : a.channels ? `${a.channels} ch` : "";
  return [name, a.codec.toUpperCase(), ch].filter(Boolean).join(" · ");
}

function subtitleLabel(s: Subtitle, i: number): string {
  const name = languageName(s.language) ?? s.title ?? `Subtitles ${i + 1}`;
  return s.source === "sidecar" ? `${name} (file)` : name;
}

/** Plays an HLS playlist: natively where the browser can (Safari), else with hls.js, loaded on first use. */
async function attachHls(
  el: HTMLMediaElement,
  url: string,
  startAt: number | undefined,
  onFatal: (status?: number) => void,
): Promise<Hls | undefined> {
  if (el.canPlayType("application/vnd.apple.mpegurl")) {
    el.src = startAt ? `${url}#t=${startAt}` : url;
    return undefined;
  }
  const { default: HlsJs } = await import("hls.js");
  if (!HlsJs.isSupported())
    throw new Error("this browser cannot play converted streams (no Media Source support)");
  const hls = new HlsJs({ startPosition: startAt ?? -1, maxBufferLength: 30 });
  hls.on(HlsJs.Events.ERROR, (_event, data) => {
    if (data.fatal) onFatal(data.response?.code);
  });
  hls.loadSource(url);
  hls.attachMedia(el);
  return hls;
}

/**
 * Plays any audio or video file. GET /files/:id/playback-info says how:
 * direct (the file with byte ranges), or HLS that the server remuxes or
 * transcodes (H.264/AAC) for files this browser cannot play as they are.
 * Audio tracks and subtitles (embedded and sidecar) can be picked; the
 * choice is remembered per file in this browser. Resumes at the saved
 * position (seconds of the source, whatever the mode) and saves it while
 * playing, on pause, on seek and when the page goes away. Music shows its tags.
 */
export function MediaPlayer({ f }: { f: FileRec }) {
  const ref = useRef<HTMLVideoElement & HTMLAudioElement>(null);
  const [info, setInfo] = useState<PlaybackInfo>();
  const [resumeAt, setResumeAt] = useState<number>();
  const [choice, setChoice] = useState(() => loadChoice(f.id));
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let alive = true;
    setInfo(undefined);
    setNote(undefined);
    setFailure(undefined);
    const here = ref.current?.currentTime;
    Promise.all([
      playbackInfo(f.id, choice.audio).catch(async (e) => {
        // A remembered track the file no longer has: forget it and ask again.
        if (choice.audio === undefined) throw e;
        saveChoice(f.id, { ...choice, audio: undefined });
        return playbackInfo(f.id);
      }),
      getPosition(f.id).catch(() => undefined),
    ])
      .then(([pi, pos]) => {
        if (!alive) return;
        // Switching audio mid-film continues where it was; otherwise resume the saved position.
        if (here && here > 1) setResumeAt(here);
        else {
          const p = pos?.position_seconds ?? 0;
          const d = pos?.duration_seconds || 0;
          // Finished (within 5% of the end) or barely started: start from the top.
          setResumeAt(p >= 2 && (!d || p < d * 0.95) ? p : undefined);
        }
        setInfo(pi);
      })
      .catch((e) => alive && setError(messageOf(e)));
    return () => {
      alive = false;
    };
  }, [f.id, attempt, choice.audio]);

  const src = info?.mode === "direct" ? info.direct_url : (info?.hls_url ?? info?.direct_url);
  const hls = info?.mode !== "direct" && Boolean(info?.hls_url);

  // The source: a plain URL, or HLS through hls.js.
  useEffect(() => {
    const el = ref.current;
    if (!el || !src) return;
    let player: Hls | undefined;
    let alive = true;
    if (!hls) el.src = src;
    else {
      const onFatal = (status?: number) =>
        setFailure(
          status === 503
            ? "Playback stopped: the server is busy converting other videos. Retry in a moment."
            : "Playback stopped: the converted stream could not be loaded.",
        );
      attachHls(el, src, resumeAt, onFatal)
        .then((h) => {
          if (!alive) h?.destroy();
          else player = h;
        })
        .catch((e) => setFailure(`Playback stopped: ${messageOf(e)}`));
    }
    void el.play?.().catch(() => undefined);
    return () => {
      alive = false;
      player?.destroy();
      el.removeAttribute("src");
    };
  }, [src, hls]);

  // Subtitles: show the chosen one (or none).
  useEffect(() => {
    const el = ref.current;
    if (!el || !info) return;
    const tracks = el.textTracks;
    for (let i = 0; i < tracks.length; i++) {
      const t = tracks[i] as TextTrack;
      t.mode = String(choice.subtitle) === t.id ? "showing" : "disabled";
    }
  }, [info, choice.subtitle]);

  useEffect(() => {
    const el = ref.current;
    if (!el || !src) return;
    let last = 0;
    const save = (force = false, keepalive = false) => {
      if (!el.duration || !Number.isFinite(el.duration) || (!force && Date.now() - last < SAVE_EVERY_MS))
        return;
      last = Date.now();
      void savePosition(f.id, el.currentTime, el.duration, keepalive);
    };
    let resumed = hls;
    const onMeta = () => {
      if (!resumed && resumeAt !== undefined && resumeAt < el.duration) {
        resumed = true;
        el.currentTime = resumeAt;
      }
      if (resumeAt !== undefined && !note) setNote(`Resumed at ${formatDuration(resumeAt)}`);
    };
    const onTime = () => save();
    const onPause = () => save(true);
    const onEnded = () => save(true);
    const onLeave = () => save(true, true);
    const onError = () => {
      void explainFailure(el, src).then((why) =>
        setFailure(`Playback stopped: ${why}${info?.reason ? ` (${info.reason})` : ""}`),
      );
    };
    el.addEventListener("error", onError);
    // It may have failed before this effect ran.
    if (el.error) onError();
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
      el.removeEventListener("error", onError);
      el.removeEventListener("loadedmetadata", onMeta);
      el.removeEventListener("timeupdate", onTime);
      el.removeEventListener("pause", onPause);
      el.removeEventListener("seeked", onPause);
      el.removeEventListener("ended", onEnded);
      window.removeEventListener("pagehide", onLeave);
    };
  }, [src, f.id, resumeAt]);

  if (error) return <p class="error">Cannot play this file: {error}</p>;
  const video = kindOf(f) === "video" && info?.video !== null;
  const choose = (next: typeof choice) => {
    setChoice(next);
    saveChoice(f.id, next);
  };
  const link = src ? new URL(src, location.origin).href : undefined;
  const tags = info?.tags;
  return (
    <div class={`player ${video ? "player-video" : "player-audio"}`} data-mode={info?.mode}>
      {tags && (tags.title || tags.artist) ? (
        <div class="music-tags">
          <strong>{tags.title ?? f.name}</strong>
          <span>{[tags.artist, tags.album, tags.year].filter(Boolean).join(" · ")}</span>
          {tags.track ? <span class="muted">Track {tags.track}</span> : null}
        </div>
      ) : null}
      {info ? (
        video ? (
          // biome-ignore lint/a11y/useMediaCaption: the file's own subtitles are the tracks, when it has any
          <video ref={ref} controls autoplay playsInline preload="metadata" aria-label={f.name}>
            {info.subtitles.map((s, i) => (
              <track
                key={s.index}
                id={String(s.index)}
                kind="subtitles"
                src={s.url}
                srclang={s.language}
                label={subtitleLabel(s, i)}
              />
            ))}
          </video>
        ) : (
          // biome-ignore lint/a11y/useMediaCaption: audio
          <audio ref={ref} controls autoplay preload="metadata" aria-label={f.name} />
        )
      ) : (
        <p class="muted">Loading…</p>
      )}
      {info ? (
        <div class="player-options">
          {info.mode !== "direct" ? (
            <span
              class="muted"
              title={
                info.mode === "transcode"
                  ? "This browser cannot play the file as it is: the server converts it while you watch."
                  : "The server repackages the file for this browser; picture quality is unchanged."
              }
            >
              {info.mode === "transcode" ? "Converted for this browser" : "Repackaged for this browser"}
            </span>
          ) : null}
          {info.audio.length > 1 ? (
            <label>
              Audio{" "}
              <select
                aria-label="Audio track"
                value={String(info.audio.find((a) => a.selected)?.index ?? "")}
                onChange={(e) => choose({ ...choice, audio: Number((e.target as HTMLSelectElement).value) })}
              >
                {info.audio.map((a, i) => (
                  <option key={a.index} value={String(a.index)}>
                    {audioLabel(a, i)}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          {video && info.subtitles.length > 0 ? (
            <label>
              Subtitles{" "}
              <select
                aria-label="Subtitles"
                value={String(choice.subtitle ?? -1)}
                onChange={(e) =>
                  choose({ ...choice, subtitle: Number((e.target as HTMLSelectElement).value) })
                }
              >
                <option value="-1">Off</option>
                {info.subtitles.map((s, i) => (
                  <option key={s.index} value={String(s.index)}>
                    {subtitleLabel(s, i)}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          {link ? (
            <button
              type="button"
              class="link"
              title="A link for VLC, mpv, Infuse or a TV's browser; it works for about 6 hours"
              onClick={() =>
                navigator.clipboard?.writeText(link).then(() => toast("Link copied: open it in your player"))
              }
            >
              Copy link for another player
            </button>
          ) : null}
        </div>
      ) : null}
      {failure ? (
        <p class="error" role="alert">
          {failure}{" "}
          <button type="button" class="link" onClick={() => setAttempt((n) => n + 1)}>
            Retry
          </button>
        </p>
      ) : null}
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

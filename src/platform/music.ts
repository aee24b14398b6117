import { loadOnce } from "./lazy.ts";
import { pathOfOpen, type ReadableFile } from "./open-files.ts";

/** music-metadata (and the file-type sniffers it brings) loads with the first file read, not at start. */
const musicMetadata = loadOnce(() => import("music-metadata"));

/** Tags of a music file (absent when the file has none). */
export interface MusicTags {
  title?: string;
  artist?: string;
  album?: string;
  album_artist?: string;
  track?: number;
  disc?: number;
  year?: number;
  genre?: string;
  has_cover: boolean;
}

const text = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() ? v.trim().slice(0, 500) : undefined;
const count = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v > 0 && v < 100_000 ? v : undefined;

/**
 * Reads an opened music file's tags (ID3, Vorbis comments, MP4 atoms, APE,
 * ASF) with music-metadata, through the file's descriptor (its format is
 * sniffed from the content: the name music-metadata is given has no
 * extension); undefined when it cannot be parsed. Only the tag blocks are
 * read, not the audio.
 */
export async function readMusicTags(file: ReadableFile): Promise<MusicTags | undefined> {
  try {
    const { parseFile } = await musicMetadata();
    const { common } = await parseFile(pathOfOpen(file), { duration: false, skipCovers: false });
    const tags: MusicTags = { has_cover: Boolean(common.picture?.length) };
    const fields: Partial<MusicTags> = {
      title: text(common.title),
      artist: text(common.artist),
      album: text(common.album),
      album_artist: text(common.albumartist),
      track: count(common.track.no),
      disc: count(common.disk.no),
      year: count(common.year),
      genre: text(common.genre?.[0]),
    };
    for (const [k, v] of Object.entries(fields))
      if (v !== undefined) (tags as never as Record<string, unknown>)[k] = v;
    return tags;
  } catch {
    return undefined;
  }
}

/** The embedded cover art of an opened music file (front cover first), or undefined. */
export async function readCoverArt(file: ReadableFile): Promise<Buffer | undefined> {
  try {
    const { parseFile } = await musicMetadata();
    const { common } = await parseFile(pathOfOpen(file), { duration: false, skipCovers: false });
    const pictures = common.picture ?? [];
    const front = pictures.find((p) => /front/i.test(p.type ?? "")) ?? pictures[0];
    return front ? Buffer.from(front.data) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Deterministic synthetic household library for the search benchmark: media
 * names like the reference tree of ../shared/bench/mktree.py (spaces,
 * brackets, accents, CJK, Cyrillic, emoji), in category/group/leaf
 * directories, as tree rows in parent-before-child order.
 */

/** mulberry32: small, fast, seedable. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "Grand Budapest Hotel|Blade Runner|Amélie|Le Fabuleux Destin|Spirited Away|千と千尋の神隠し|" +
  "Крёстный отец|Björk|Jóga|Sigur Rós|Ágætis byrjun|Motörhead|Beyoncé|東京 夜景|Ñandú|Zoë|São Paulo|" +
  "Kraków|Düsseldorf|Reykjavík|München|naïve|café|Holiday|Birthday Party|Wedding|Summer Trip|Christmas|" +
  "Beach|Mountains|Family|Live at Wembley|Greatest Hits|Remastered|Director's Cut|Extended Edition|" +
  "The Office|Breaking Bad|Dark|Chernobyl|Planet Earth II|Cosmos|Fargo|Invoice|Report|Scan|Contract|" +
  "Tax Return|Receipt|Notes|Draft|Final FINAL|Pink Floyd|Daft Punk|Radiohead|Mozart|Bach – Cello Suites|" +
  "坂本龍一|Ólafur Arnalds|🎉 party|🌅 sunset|かわいい猫|고양이|Ελλάδα|Αθήνα|Ünïcödé Tëst"
).split("|");

const CATEGORIES: Record<string, string[]> = {
  Movies: ["mkv", "mp4", "srt", "nfo", "jpg"],
  "TV Shows": ["mkv", "mp4", "srt", "nfo"],
  Music: ["flac", "mp3", "m4a", "opus", "jpg", "cue"],
  Photos: ["jpg", "jpeg", "heic", "png", "dng", "mp4", "mov"],
  Documents: ["pdf", "docx", "xlsx", "txt", "md", "odt"],
  Downloads: ["zip", "iso", "tar.gz", "deb", "pdf", "mkv"],
};

export interface GenRow {
  /** Index of the parent row, -1 at the top. */
  parent: number;
  name: string;
  path: string;
  type: "file" | "directory";
  size: number;
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

function namers(r: () => number) {
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const w = () => pick(WORDS);
  const leaf = (cat: string, i: number): string => {
    const y = int(1960, 2025);
    if (cat === "Movies") return `${w()} (${y}) [${pick(["1080p", "2160p", "720p", "BluRay", "WEB-DL"])}]`;
    if (cat === "TV Shows") return `${w()} – Season ${pad(int(1, 12), 2)}`;
    if (cat === "Music") return `${w()} - ${w()} (${y}) [${pick(["FLAC", "MP3 320", "24-96"])}]`;
    if (cat === "Photos") return `${w()} ${y}-${pad(int(1, 12), 2)}`;
    if (cat === "Documents") return `${w()} ${y} #${i}`;
    return `${w()}.${int(1, 999)} (copy ${i})`;
  };
  const file = (cat: string, j: number, ext: string): string => {
    if (cat === "Movies")
      return `${w().replace(/ /g, ".")}.${int(1960, 2025)}.${pick(["1080p", "2160p"])}.${ext}`;
    if (cat === "TV Shows")
      return `Show.Name.S${pad(int(1, 12), 2)}E${pad(j, 2)}.${pick(["720p", "1080p"])}.${ext}`;
    if (cat === "Music") return `${pad(j, 2)}. ${w()} - ${w()}.${ext}`;
    if (cat === "Photos") {
      return pick([
        `IMG_${pad(int(0, 9999), 4)}.${ext}`,
        `DSC${pad(int(0, 99999), 5)}.${ext}`,
        `${w()} ${pad(j, 3)}.${ext}`,
      ]);
    }
    if (cat === "Documents")
      return `${pick(["invoice", "report", "scan", "receipt"])}-${int(2000, 2025)}-${pad(int(1, 12), 2)}.${ext}`;
    return `${w()} ${j} (${pick(["v2", "final", "old", "edited", "scan"])}).${ext}`;
  };
  return { int, pick, leaf, file };
}

/**
 * Yields exactly `total` rows: 6 category directories, ~200 group
 * directories each, leaf directories of 5-60 files. Sizes are realistic per
 * extension class. Same seed, same rows.
 */
export function* generateTree(total: number, seed = 42): Generator<GenRow> {
  const r = rng(seed);
  const { int, pick, leaf, file } = namers(r);
  const cats = Object.keys(CATEGORIES);
  let emitted = 0;
  const emit = (row: GenRow) => {
    emitted++;
    return row;
  };
  const catIdx: number[] = [];
  for (const cat of cats) {
    catIdx.push(emitted);
    yield emit({ parent: -1, name: cat, path: `/${cat}`, type: "directory", size: 0 });
  }
  for (let i = 0; emitted < total; i++) {
    const c = i % cats.length;
    const cat = cats[c]!;
    const group = `${cat === "Photos" ? int(1990, 2025) : String.fromCharCode(65 + int(0, 25))} ${pick(WORDS)}`;
    const groupIdx = emitted;
    yield emit({
      parent: catIdx[c]!,
      name: `${group} ${i}`,
      path: `/${cat}/${group} ${i}`,
      type: "directory",
      size: 0,
    });
    const leafName = leaf(cat, i);
    const leafIdx = emitted;
    const leafPath = `/${cat}/${group} ${i}/${leafName}`;
    if (emitted >= total) return;
    yield emit({ parent: groupIdx, name: leafName, path: leafPath, type: "directory", size: 0 });
    const n = int(5, 60);
    const seen = new Set<string>();
    for (let j = 1; j <= n && emitted < total; j++) {
      const ext = pick(CATEGORIES[cat]!);
      let name = file(cat, j, ext);
      // Names are unique among a directory's children.
      if (seen.has(name)) name = `${j} ${name}`;
      seen.add(name);
      const size = ["mkv", "mp4", "mov", "iso"].includes(ext) ? int(1e8, 4e9) : int(1e3, 3e7);
      yield emit({ parent: leafIdx, name, path: `${leafPath}/${name}`, type: "file", size });
    }
  }
}

import { rmSync } from "node:fs";
import { join } from "node:path";
import { startAttic, uploadWithCurl, WORK } from "./lib/attic.ts";
import { bigFile, GiB, warm } from "./lib/data.ts";
import { run, SRV_CPU } from "./lib/proc.ts";
import { type Figure, figure } from "./lib/report.ts";
import { median } from "./lib/stats.ts";

const RUNS = Number(process.env.UP_RUNS ?? 3);

/**
 * The limit of any upload on this machine: read the file once, SHA-256 it and
 * write it to disk, then sync (what Attic must do at the least), in MiB/s.
 */
async function diskAndShaLimit(src: string): Promise<number> {
  const out = join(WORK, "upload-ref.bin");
  const script = `cat '${src}' | tee >(sha256sum > /dev/null) > '${out}'; sync`;
  const r = await run("bash", ["-c", script], { cpu: SRV_CPU, timeoutMs: 300_000 });
  rmSync(out, { force: true });
  if (r.code !== 0) throw new Error(`reference upload failed: ${r.stderr}`);
  return GiB / 1048576 / r.seconds;
}

/** Upload of a 1 GiB file (multipart, curl) against the disk-write + SHA-256 limit, interleaved. */
export async function uploadBench(): Promise<Figure[]> {
  const src = await bigFile();
  await warm(src);
  const a = await startAttic();
  try {
    const attic: number[] = [];
    const ref: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { file, mibPerSecond } = await uploadWithCurl(a, src, `upload-${i}.bin`);
      attic.push(mibPerSecond);
      await a.api("DELETE", `/api/v1/files/${file.id}`);
      await run("sync", []);
      ref.push(await diskAndShaLimit(src));
    }
    return [
      figure({
        benchmark: "upload",
        metric: "upload 1 GiB (multipart, 1 conn)",
        unit: "MiB/s",
        attic: median(attic),
        reference: median(ref),
        referenceName: "cat|tee>(sha256sum)>file;sync",
        higherIsBetter: true,
        atticPeakRssMiB: a.peakRssMiB(),
        atticSamples: attic,
        referenceSamples: ref,
        note: `median of ${RUNS}`,
      }),
    ];
  } finally {
    await a.stop();
  }
}

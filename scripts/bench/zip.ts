import { startAttic, uploadWithCurl } from "./lib/attic.ts";
import { bigFile, warm } from "./lib/data.ts";
import { CLI_CPU, run } from "./lib/proc.ts";
import { type Figure, figure } from "./lib/report.ts";
import { median } from "./lib/stats.ts";

const RUNS = Number(process.env.ZIP_RUNS ?? 3);

/** curl's speed for GET `url` into /dev/null, MiB/s. */
async function speed(url: string, token: string): Promise<number> {
  const r = await run(
    "curl",
    [
      "-sS",
      "-o",
      "/dev/null",
      "-H",
      `Authorization: Bearer ${token}`,
      "-w",
      "%{http_code} %{speed_download}",
      url,
    ],
    { cpu: CLI_CPU, timeoutMs: 600_000 },
  );
  const [code, bytesPerSecond] = r.stdout.split(" ");
  if (code !== "200") throw new Error(`zip bench: ${url} answered ${code}`);
  return Number(bytesPerSecond) / 1048576;
}

/**
 * Zip downloads (issue 16): a 2 GiB folder (two 1 GiB files) as one streamed
 * zip against the plain download of a 1 GiB file, interleaved; peak RSS
 * shows whether memory stays flat.
 */
export async function zipBench(): Promise<Figure[]> {
  const src = await bigFile();
  await warm(src);
  const a = await startAttic();
  try {
    const dir = (await a.api("POST", "/api/v1/directories", { name: "Two GiB" })).body as {
      file: { id: string };
    };
    let fileId = "";
    for (const name of ["a.bin", "b.bin"]) {
      const { file } = await uploadWithCurl(a, src, name);
      await a.api("POST", `/api/v1/files/${file.id}/move`, { new_parent_id: dir.file.id });
      fileId = file.id;
    }
    const zip: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      zip.push(await speed(`${a.url}/api/v1/directories/${dir.file.id}/zip`, a.token));
      plain.push(await speed(`${a.url}/api/v1/files/${fileId}/download`, a.token));
    }
    return [
      figure({
        benchmark: "zip",
        metric: "zip of a 2 GiB folder (stored, streamed)",
        unit: "MiB/s",
        attic: median(zip),
        reference: median(plain),
        referenceName: "plain download of 1 GiB (same server)",
        higherIsBetter: true,
        atticPeakRssMiB: a.peakRssMiB(),
        atticSamples: zip,
        referenceSamples: plain,
        note: `median of ${RUNS}`,
      }),
    ];
  } finally {
    await a.stop();
  }
}

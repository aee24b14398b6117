import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startAttic, uploadWithCurl, WORK } from "./lib/attic.ts";
import { bigFile, GiB, warm } from "./lib/data.ts";
import { startNginx } from "./lib/nginx.ts";
import { CLI_CPU, run, SRV_CPU } from "./lib/proc.ts";
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

/** One WebDAV PUT of `src` to nginx with curl (pinned to the client CPU), in MiB/s; the file is removed after. */
async function nginxPut(url: string, src: string, dir: string): Promise<number> {
  const r = await run(
    "curl",
    ["-sS", "-o", "/dev/null", "-T", src, "-w", "%{http_code} %{speed_upload}", url],
    {
      cpu: CLI_CPU,
      timeoutMs: 300_000,
    },
  );
  const [code, speed] = r.stdout.trim().split(" ");
  if (code !== "201" && code !== "204") throw new Error(`nginx PUT answered ${code}: ${r.stderr}`);
  rmSync(join(dir, "put"), { recursive: true, force: true });
  return Number(speed) / 1048576;
}

/**
 * Upload of a 1 GiB file (multipart, curl) against nginx's WebDAV PUT of the
 * same file on the same disk (the strongest server reference; it neither
 * hashes nor syncs) and against the disk-write + SHA-256 limit, interleaved.
 */
export async function uploadBench(): Promise<Figure[]> {
  const src = await bigFile();
  await warm(src);
  const a = await startAttic();
  const davRoot = mkdtempSync(join(WORK, "dav-"));
  const ngx = await startNginx(davRoot, {
    locations: `location /put/ { dav_methods PUT; create_full_put_path on; client_max_body_size 0; client_body_temp_path ${davRoot}/tmp; }`,
  });
  try {
    const attic: number[] = [];
    const ref: number[] = [];
    const put: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const { file, mibPerSecond } = await uploadWithCurl(a, src, `upload-${i}.bin`);
      attic.push(mibPerSecond);
      await a.api("DELETE", `/api/v1/files/${file.id}`);
      await run("sync", []);
      put.push(await nginxPut(`${ngx.url}/put/upload-${i}.bin`, src, davRoot));
      await run("sync", []);
      ref.push(await diskAndShaLimit(src));
    }
    return [
      figure({
        benchmark: "upload",
        metric: "upload 1 GiB (multipart, 1 conn)",
        unit: "MiB/s",
        attic: median(attic),
        reference: median(put),
        referenceName: "nginx WebDAV PUT (curl -T)",
        higherIsBetter: true,
        atticPeakRssMiB: a.peakRssMiB(),
        atticSamples: attic,
        referenceSamples: put,
        note: `median of ${RUNS}; nginx neither hashes nor syncs`,
      }),
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
    await ngx.stop();
    await a.stop();
    rmSync(davRoot, { recursive: true, force: true });
  }
}

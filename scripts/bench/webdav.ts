import { rmSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_PASSWORD, type AtticProcess, startAttic, uploadWithCurl, WORK } from "./lib/attic.ts";
import { bigFile, GiB, warm } from "./lib/data.ts";
import { CLI_CPU, run } from "./lib/proc.ts";
import { type Figure, figure, say } from "./lib/report.ts";
import { median } from "./lib/stats.ts";

const RUNS = Number(process.env.DAV_RUNS ?? 3);
const ENTRIES = Number(process.env.DAV_ENTRIES ?? 10_000);

/** rclone's on-the-fly WebDAV remote for the admin (no config file). */
async function remote(a: AtticProcess): Promise<string> {
  const r = await run("rclone", ["obscure", ADMIN_PASSWORD]);
  return `:webdav,url='${a.url}/dav/',vendor=other,user=admin,pass='${r.stdout.trim()}':`;
}

async function rclone(args: string[]): Promise<number> {
  const r = await run("rclone", [...args, "--config", "/dev/null", "--retries", "1"], {
    cpu: CLI_CPU,
    timeoutMs: 600_000,
  });
  if (r.code !== 0) throw new Error(`rclone ${args[0]} failed: ${r.stderr.slice(0, 300)}`);
  return GiB / 1048576 / r.seconds;
}

/** A folder of ENTRIES members (empty folders: what PROPFIND reads is rows, not bytes). */
async function bigFolder(a: AtticProcess): Promise<void> {
  const parent = (await a.api("POST", "/api/v1/directories", { name: "Big" })).body as {
    file: { id: string };
  };
  let next = 0;
  const worker = async () => {
    while (next < ENTRIES) {
      const i = next++;
      await a.api("POST", "/api/v1/directories", { name: `entry-${i}`, parent_id: parent.file.id });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/**
 * WebDAV (issue 17): rclone copying 1 GiB up and down through /dav/ against
 * the same transfer through REST (curl), interleaved; and PROPFIND Depth 1
 * on a folder of 10,000 entries against the 100 ms goal.
 */
export async function webdavBench(): Promise<Figure[]> {
  const src = await bigFile();
  await warm(src);
  const a = await startAttic();
  try {
    const r = await remote(a);
    const up: number[] = [];
    const down: number[] = [];
    const restUp: number[] = [];
    const restDown: number[] = [];
    const back = join(WORK, "dav-down.bin");
    for (let i = 0; i < RUNS; i++) {
      up.push(await rclone(["copyto", src, `${r}dav-${i}.bin`]));
      down.push(await rclone(["copyto", `${r}dav-${i}.bin`, back]));
      rmSync(back, { force: true });
      const { file, mibPerSecond } = await uploadWithCurl(a, src, `rest-${i}.bin`);
      restUp.push(mibPerSecond);
      const d = await run(
        "curl",
        [
          "-sS",
          "-o",
          back,
          "-H",
          `Authorization: Bearer ${a.token}`,
          "-w",
          "%{speed_download}",
          `${a.url}/api/v1/files/${file.id}/download`,
        ],
        { cpu: CLI_CPU, timeoutMs: 300_000 },
      );
      restDown.push(Number(d.stdout) / 1048576);
      rmSync(back, { force: true });
    }
    await bigFolder(a);
    const auth = `admin:${ADMIN_PASSWORD}`;
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const p = await run(
        "curl",
        [
          "-sS",
          "-o",
          "/dev/null",
          "-u",
          auth,
          "-X",
          "PROPFIND",
          "-H",
          "Depth: 1",
          "-w",
          "%{http_code} %{time_total}",
          `${a.url}/dav/Big/`,
        ],
        { cpu: CLI_CPU },
      );
      const [code, t] = p.stdout.split(" ");
      if (code !== "207") say(`webdav: PROPFIND answered ${code}`);
      if (i > 0) times.push(Number(t) * 1000);
    }
    const common = { benchmark: "webdav", atticPeakRssMiB: a.peakRssMiB(), note: `median of ${RUNS}` };
    return [
      figure({
        ...common,
        metric: "rclone upload 1 GiB via /dav/",
        unit: "MiB/s",
        attic: median(up),
        reference: median(restUp),
        referenceName: "REST multipart upload (curl)",
        higherIsBetter: true,
        atticSamples: up,
        referenceSamples: restUp,
      }),
      figure({
        ...common,
        metric: "rclone download 1 GiB via /dav/",
        unit: "MiB/s",
        attic: median(down),
        reference: median(restDown),
        referenceName: "REST download (curl)",
        higherIsBetter: true,
        atticSamples: down,
        referenceSamples: restDown,
      }),
      figure({
        ...common,
        metric: `PROPFIND Depth 1, ${ENTRIES} entries`,
        unit: "ms",
        attic: median(times),
        reference: 100,
        referenceName: "goal",
        higherIsBetter: false,
        atticSamples: times,
        referenceSamples: [100],
        note: "median of 5",
      }),
    ];
  } finally {
    await a.stop();
  }
}

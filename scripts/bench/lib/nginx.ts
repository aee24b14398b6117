import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { WORK } from "./attic.ts";
import { freePort, pinned, SRV_CPU, stopChild, waitPort } from "./proc.ts";

export interface Nginx {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * nginx as the static-file ceiling, configured as /work/shared/bench/02-nginx.sh
 * does: 1 worker, sendfile, tcp_nopush off (on stalls 40 ms per 64 KiB range on
 * loopback), no access log, pinned to the server CPU; serves `root`, with
 * `locations` (nginx text) added to its server block. Under root its
 * worker runs as root too, since Attic's blobs are private to their owner.
 */
export async function startNginx(root: string, opts: { locations?: string } = {}): Promise<Nginx> {
  const dir = join(WORK, "nginx");
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    `${process.getuid?.() === 0 ? "user root root;\n" : ""}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  default_type application/octet-stream;
  access_log off;
  sendfile on; tcp_nopush off; tcp_nodelay on;
  keepalive_requests 1000000; keepalive_timeout 60s;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server { listen 127.0.0.1:${port}; root ${root}; location / { } ${opts.locations ?? ""} }
}
`,
  );
  const [cmd, args] = pinned(SRV_CPU, "nginx", ["-c", conf, "-g", "daemon off;"]);
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "inherit"] });
  await waitPort(port, 10_000);
  return { url: `http://127.0.0.1:${port}`, child, stop: () => stopChild(child) };
}

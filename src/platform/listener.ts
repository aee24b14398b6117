import { readFileSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import http2, { type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from "node:http2";
import net, { type Socket } from "node:net";

export type Handler = (
  req: IncomingMessage | Http2ServerRequest,
  res: ServerResponse | Http2ServerResponse,
) => void;

export interface ListenerOptions {
  host: string;
  port: number;
  maxHeaderBytes: number;
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  tls?: { cert: string; key: string } | undefined;
}

export interface Listener {
  host: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish up to `graceMs`, then cuts the rest. */
  close(graceMs: number): Promise<void>;
}

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/**
 * One TCP port for HTTP/1.1 and cleartext HTTP/2 (prior knowledge): each new
 * socket's first bytes are read; the HTTP/2 preface sends it to the HTTP/2
 * server, anything else to the HTTP/1 server, with the bytes put back. With a
 * certificate, TLS with ALPN (h2, http/1.1) instead.
 */
export async function listen(handler: Handler, opts: ListenerOptions): Promise<Listener> {
  const h1 = http.createServer(
    {
      maxHeaderSize: opts.maxHeaderBytes,
      headersTimeout: opts.headersTimeoutMs,
      // Uploads may take long; idle sockets are cut by the socket timeout instead.
      requestTimeout: 0,
      keepAliveTimeout: 5_000,
      // How often headers_timeout is enforced (Node's default, 30 s, lets a slowloris linger).
      connectionsCheckingInterval: 1_000,
    },
    handler,
  );
  // Node tracks connections (headers timeout, closeIdleConnections) only from the
  // server's own "listening" event; this server never listens itself (see dispatch).
  h1.emit("listening");
  h1.setTimeout(opts.idleTimeoutMs, (socket) => socket.destroy());
  const h2Options: http2.ServerOptions = {
    maxSessionMemory: 32,
    settings: { maxHeaderListSize: opts.maxHeaderBytes, maxConcurrentStreams: 256 },
    maxHeaderListPairs: 256,
  };
  const sessions = new Set<Http2Session>();
  const sockets = new Set<Socket>();
  /** Sockets that have not yet sent enough bytes to pick HTTP/1 or HTTP/2. */
  const undecided = new Set<Socket>();
  const trackSessions = (s: http2.Http2Server | http2.Http2SecureServer) => {
    s.on("session", (session) => {
      sessions.add(session);
      session.setTimeout(opts.idleTimeoutMs, () => session.close());
      session.once("close", () => sessions.delete(session));
    });
  };

  let server: net.Server;
  if (opts.tls) {
    const secure = http2.createSecureServer(
      {
        ...h2Options,
        cert: readFileSync(opts.tls.cert),
        key: readFileSync(opts.tls.key),
        allowHTTP1: true,
        ALPNProtocols: ["h2", "http/1.1"],
        // A client that stalls the handshake is cut like one that stalls its headers.
        handshakeTimeout: opts.headersTimeoutMs,
      },
      handler,
    );
    secure.setTimeout(opts.idleTimeoutMs);
    trackSessions(secure);
    server = secure;
  } else {
    const h2 = http2.createServer(h2Options, handler);
    trackSessions(h2);
    server = net.createServer(
      { pauseOnConnect: true, noDelay: true, keepAlive: true, keepAliveInitialDelay: 60_000 },
      (socket) => dispatch(socket, h1, h2, opts.headersTimeoutMs, undecided),
    );
  }
  // Every raw socket, so shutdown can end the ones no protocol server knows about.
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as net.AddressInfo;

  return {
    host: opts.host,
    port: address.port,
    close: async (graceMs) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Connected but silent (a browser's preconnect): no request in flight, nothing to finish.
      for (const socket of undecided) socket.destroy();
      h1.closeIdleConnections();
      for (const s of sessions) s.close();
      const timer = setTimeout(() => {
        h1.closeAllConnections();
        for (const s of sessions) s.destroy();
        for (const socket of sockets) socket.destroy();
      }, graceMs);
      const idleSweep = setInterval(() => h1.closeIdleConnections(), 100);
      await closed;
      clearTimeout(timer);
      clearInterval(idleSweep);
      // h1 never listened itself: closing it stops its connection-checking interval.
      h1.close();
    },
  };
}

/** Reads the first bytes of a socket and hands it to the server that speaks its protocol. */
function dispatch(
  socket: Socket,
  h1: http.Server,
  h2: http2.Http2Server,
  timeoutMs: number,
  undecided: Set<Socket>,
): void {
  let buffered = Buffer.alloc(0);
  undecided.add(socket);
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  socket.once("close", () => undecided.delete(socket));
  const done = (to: "h1" | "h2") => {
    undecided.delete(socket);
    clearTimeout(timer);
    socket.off("data", onData);
    socket.off("error", onError);
    socket.pause();
    socket.unshift(buffered);
    if (to === "h2") {
      // The session takes the buffered bytes itself; resuming would drop them.
      h2.emit("connection", socket);
    } else {
      h1.emit("connection", socket);
      socket.resume();
    }
  };
  const onError = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    const n = Math.min(buffered.length, PREFACE.length);
    if (!buffered.subarray(0, n).equals(PREFACE.subarray(0, n))) return done("h1");
    if (buffered.length >= PREFACE.length) return done("h2");
    // A prefix of the preface: wait for the rest.
  };
  socket.on("data", onData);
  socket.on("error", onError);
  socket.resume();
}

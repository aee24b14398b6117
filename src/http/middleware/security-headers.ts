import type { MiddlewareHandler } from "hono";

/**
 * The security headers of interface.md on every response, errors and 404s
 * included. Routes that serve user content may tighten the CSP further.
 */
export function securityHeaders(opts: { hsts: boolean }): MiddlewareHandler {
  return async function securityHeadersMiddleware(c, next) {
    await next();
    const h = c.res.headers;
    if (!h.has("Content-Security-Policy")) {
      h.set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'");
    }
    h.set("X-Frame-Options", "DENY");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "strict-origin-when-cross-origin");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    h.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
    // Sent always, as interface.md asks; browsers ignore it over plain HTTP.
    if (opts.hsts) h.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload");
  };
}

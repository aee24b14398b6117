/** Where WebDAV lives. */
export const DAV_PREFIX = "/dav";

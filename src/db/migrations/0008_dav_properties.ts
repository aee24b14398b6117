/**
 * WebDAV dead properties (PROPPATCH): any client property of a file or
 * directory, by namespace and name, with its value as the XML the client
 * sent. They go with their row (ON DELETE CASCADE).
 */
export default /* sql */ `
CREATE TABLE dav_properties (
  file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  ns TEXT NOT NULL,
  name TEXT NOT NULL,
  xml TEXT NOT NULL,
  PRIMARY KEY (file_id, ns, name)
);
`;

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, GOOD_PASSWORD } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** Uploads `content` as `name` at the top of the caller's tree; returns the file id. */
async function upload(
  s: TestServer,
  token: string,
  name: string,
  content: string,
  type: string,
): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([content], { type }), name);
  const r = await s.api("POST", "/api/v1/files", { token, body: form });
  expect(r.status).toBe(201);
  return r.body.id;
}

describe("stream tokens (media elements and download links)", () => {
  let s: TestServer;
  let token: string;
  let media: string;
  let other: string;
  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    token = await s.login();
    media = await upload(s, token, "song.mp3", "ID3 not really an mp3 but typed as one", "audio/mpeg");
    other = await upload(s, token, "notes.txt", "secret notes", "text/plain");
  });
  afterAll(() => s.close());

  const issue = async (id: string, t = token) =>
    s.api("POST", `/api/v1/files/${id}/stream-token`, { token: t });

  it("issues a token for a file and lets it download that file without a header", async () => {
    const r = await issue(other);
    expect(r.status).toBe(200);
    expect(Date.parse(r.body.expires_at) - Date.now()).toBeGreaterThan(5 * 3600 * 1000);
    const dl = await fetch(`${s.url}/api/v1/files/${other}/download?st=${encodeURIComponent(r.body.token)}`);
    expect(dl.status).toBe(200);
    expect(await dl.text()).toBe("secret notes");
  });

  it("works with ranges on /stream", async () => {
    const { body } = await issue(media);
    const res = await fetch(`${s.url}/api/v1/files/${media}/stream?st=${encodeURIComponent(body.token)}`, {
      headers: { range: "bytes=0-2" },
    });
    expect(res.status).toBe(206);
    expect(await res.text()).toBe("ID3");
  });

  it("is refused for another file, as a bearer token, and on other routes", async () => {
    const { body } = await issue(media);
    const st = encodeURIComponent(body.token);
    const wrongFile = await s.api("GET", `/api/v1/files/${other}/download?st=${st}`);
    expect(wrongFile.status).toBe(401);
    const asBearer = await s.api("GET", `/api/v1/files/${media}`, { token: body.token });
    expect(asBearer.status).toBe(401);
    const onMetadata = await s.api("GET", `/api/v1/files/${media}?st=${st}`);
    expect(onMetadata.status).toBe(401);
    const onContent = await s.api("GET", `/api/v1/files/${other}/content?st=${st}`);
    expect(onContent.status).toBe(401);
    const tampered = await s.api("GET", `/api/v1/files/${media}/download?st=${st.slice(0, -4)}AAAA`);
    expect(tampered.status).toBe(401);
    expect(tampered.body.error.code).toBe("ERR_UNAUTHENTICATED");
  });

  it("answers 404 for a missing file and for another organization's file, and 401 without credentials", async () => {
    expect((await issue("01a2019e-fc11-7585-be90-5c9ca8948db4")).status).toBe(404);
    const reg = await s.api("POST", "/api/v1/auth/register", {
      body: { username: "mallory", email: "mallory@example.com", password: "correct-Horse-battery-9" },
    });
    expect(reg.status).toBe(201);
    const foreign = await issue(other, reg.body.access_token);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("ERR_FILE_NOT_FOUND");
    expect((await s.api("POST", `/api/v1/files/${other}/stream-token`)).status).toBe(401);
  });

  it("stops working when the user changes password", async () => {
    const { body } = await issue(other);
    await new Promise((r) => setTimeout(r, 1100)); // password_changed_at must be a later second than iat
    const changed = await s.api("POST", "/api/v1/auth/change-password", {
      token,
      body: { current_password: "correct-Horse-battery-9", new_password: "another-Horse-battery-10" },
    });
    expect(changed.status).toBe(200);
    const dl = await s.api("GET", `/api/v1/files/${other}/download?st=${encodeURIComponent(body.token)}`);
    expect(dl.status).toBe(401);
  });

  describe("checked against the user's state now, like a bearer token", () => {
    const download = (id: string, st: string) =>
      s.api("GET", `/api/v1/files/${id}/download?st=${encodeURIComponent(st)}`);

    /** A fresh member with a file of the admin's organization and a working stream token for it. */
    async function memberWithToken(name: string) {
      const m = await createUser(s, adminToken, name);
      const id = await upload(s, adminToken, `${name}.mp3`, "ID3 data", "audio/mpeg");
      const st = (await issue(id, m.token)).body.token as string;
      expect((await download(id, st)).status).toBe(200);
      return { ...m, id, st };
    }
    let adminToken: string;
    beforeAll(async () => {
      // The test above changed the admin's password.
      const r = await s.api("POST", "/api/v1/auth/login", {
        body: { username: "admin", password: "another-Horse-battery-10" },
      });
      expect(r.status).toBe(200);
      adminToken = r.body.access_token;
    });

    it("stops after logout-all", async () => {
      const m = await memberWithToken("st-logout");
      expect((await s.api("POST", "/api/v1/auth/logout-all", { token: m.token })).status).toBe(200);
      expect((await download(m.id, m.st)).status).toBe(401);
      // The bearer token of that session ends too; a new sign-in works at once.
      expect((await s.api("GET", "/api/v1/auth/profile", { token: m.token })).status).toBe(401);
      const again = await s.api("POST", "/api/v1/auth/login", {
        body: { username: "st-logout", password: GOOD_PASSWORD },
      });
      expect((await s.api("GET", "/api/v1/auth/profile", { token: again.body.access_token })).status).toBe(
        200,
      );
    });

    it("stops after deactivation", async () => {
      const m = await memberWithToken("st-deactivated");
      expect(
        (await s.api("POST", `/api/v1/users/${m.userId}/deactivate`, { token: adminToken })).status,
      ).toBe(200);
      expect((await download(m.id, m.st)).status).toBe(401);
    });

    it("stops when file:read is taken away", async () => {
      const m = await memberWithToken("st-demoted");
      const role = await s.api("POST", "/api/v1/roles", {
        token: adminToken,
        body: { name: "NoFiles", description: "", permissions: ["org:read"] },
      });
      expect(role.status).toBe(201);
      const put = await s.api("PUT", `/api/v1/users/${m.userId}`, {
        token: adminToken,
        body: { role: "NoFiles" },
      });
      expect(put.status).toBe(200);
      expect((await download(m.id, m.st)).status).toBe(401);
    });

    it("minted with an API key, stops when the key is revoked; a signed-in user's token does not", async () => {
      const m = await memberWithToken("st-keyed");
      const k = await s.api("POST", "/api/v1/api-keys", {
        token: m.token,
        body: { name: "player", permissions: ["file:read"] },
      });
      expect(k.status).toBe(201);
      const keyed = await s.api("POST", `/api/v1/files/${m.id}/stream-token`, {
        token: { apiKey: k.body.key },
      });
      expect(keyed.status).toBe(200);
      expect((await download(m.id, keyed.body.token)).status).toBe(200);
      expect((await s.api("DELETE", `/api/v1/api-keys/${k.body.id}`, { token: m.token })).status).toBe(200);
      expect((await download(m.id, keyed.body.token)).status).toBe(401);
      expect((await download(m.id, m.st)).status).toBe(200);
    });

    it("stops after a password change, within the same second", async () => {
      const m = await memberWithToken("st-password");
      const changed = await s.api("PUT", "/api/v1/auth/password", {
        token: m.token,
        body: { current_password: GOOD_PASSWORD, new_password: "another-Horse-battery-10" },
      });
      expect(changed.status).toBe(200);
      expect((await download(m.id, m.st)).status).toBe(401);
    });
  });
});

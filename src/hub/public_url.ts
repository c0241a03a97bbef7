/**
 * The hub's public URL (`hub serve --public-url`, `HOOKTAP_HUB_PUBLIC_URL`):
 * the base channel URLs are built on, so `<base>/c/<id>` must be a channel
 * URL. Only `http:` and `https:`, with no query, fragment or credentials.
 * @module
 */

/**
 * The base of channel URLs for `raw` (no trailing `/`).
 * @throws {TypeError} with what is wrong and an example, when `raw` cannot be one.
 */
export function publicBase(raw: string, name = "--public-url"): string {
  const example = "https://hub.example.com (or https://example.com/hub)";
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TypeError(`${name} must be an http(s) URL like ${example}, got "${raw}".`);
  }
  let problem: string | undefined;
  if (u.protocol !== "http:" && u.protocol !== "https:") problem = `its scheme is ${u.protocol}`;
  else if (u.search !== "" || raw.includes("?")) problem = "it has a query (?...)";
  else if (u.hash !== "" || raw.includes("#")) problem = "it has a fragment (#...)";
  else if (u.username !== "" || u.password !== "") problem = "it has a user name or password";
  if (problem !== undefined) {
    throw new TypeError(
      `${name} must be an http(s) URL with no query, fragment or credentials, like ${example}: ` +
        `${problem} in "${raw}". Channel URLs are built as <public URL>/c/<id>.`,
    );
  }
  return u.href.replace(/\/+$/, "");
}

/**
 * A real headless Chromium (Debian's `/usr/bin/chromium`) driven by
 * puppeteer-core, with a fresh profile; `evil.test` resolves to 127.0.0.1
 * so a DNS-rebinding visit can be tried for real.
 * @module
 */
import puppeteer, { type Browser } from "puppeteer-core";

/** Where Debian installs Chromium (`.ci/run` installs it when missing). */
export const CHROMIUM = Deno.env.get("HOOKTAP_CHROMIUM") ?? "/usr/bin/chromium";

/** A launched browser; closing it removes its profile. */
export async function launchChromium(): Promise<Browser & AsyncDisposable> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (or set HOOKTAP_CHROMIUM).`);
  }
  const profile = await Deno.makeTempDir({ prefix: "hooktap_chromium_" });
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
      "--host-resolver-rules=MAP evil.test 127.0.0.1",
    ],
  });
  return Object.assign(browser, {
    async [Symbol.asyncDispose]() {
      await browser.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  });
}

/** Where the tests save screenshots for a person to look at. */
export const SCREENSHOTS = new URL("./screenshots/", import.meta.url);

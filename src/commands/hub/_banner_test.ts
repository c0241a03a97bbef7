import assert from "node:assert/strict";
import { hubBanner, type HubBannerInput } from "./_banner.ts";

const base: HubBannerInput = {
  url: "http://127.0.0.1:8786",
  hostname: "127.0.0.1",
  port: 8786,
  scheme: "http",
  kvPath: "/srv/hub.sqlite",
  publicUrl: undefined,
  admin: true,
  invokedAs: "hooktap",
  adminEnv: "HOOKTAP_HUB_ADMIN_TOKEN",
  limits: "body 10 MiB",
  warn: (t) => `!${t}`,
};

Deno.test("hub banner: on loopback, channel URLs and the admin hint are the listener's", () => {
  const text = hubBanner(base);
  assert.match(text, /channel URLs: http:\/\/127\.0\.0\.1:8786\/c\/<id>\n/);
  assert.match(text, /hub channel create --hub http:\/\/127\.0\.0\.1:8786 /);
});

Deno.test("hub banner: bound to every interface without --public-url, it never says a channel URL on 0.0.0.0", () => {
  for (const [hostname, local] of [["0.0.0.0", "http://127.0.0.1:8786"], ["::", "http://[::1]:8786"]]) {
    const text = hubBanner({ ...base, hostname: hostname!, url: `http://${hostname}:8786` });
    assert.doesNotMatch(text, /channel URLs: http:\/\/(0\.0\.0\.0|\[?::\]?)/, text);
    assert.match(text, /! {2}channel URLs: .*--public-url/, "said as a warning, with the fix");
    assert.ok(text.includes(`hub channel create --hub ${local} `), text);
  }
  const named = hubBanner({ ...base, hostname: "0.0.0.0", publicUrl: "https://hub.example.com" });
  assert.match(named, /channel URLs: https:\/\/hub\.example\.com\/c\/<id>\n/);
  assert.match(named, /hub channel create --hub https:\/\/hub\.example\.com /);
});

import { describe, expect, it } from "vitest";
import { contrastRatio, readConfig, themeVariables } from "./config";

function script(attrs: Record<string, string>, src = "https://cdn.partchat.example/widget.js"): HTMLScriptElement {
  const s = document.createElement("script");
  s.src = src;
  for (const [k, v] of Object.entries(attrs)) s.setAttribute(k, v);
  return s;
}

describe("widget config", () => {
  it("reads data-* attributes", () => {
    const c = readConfig(
      script({ "data-server": "https://api.example:8443/", "data-title": "Parts help", "data-accent": "#337778", "data-position": "left", "data-open": "true" }),
      "https://shop.example/page",
    );
    expect(c).toEqual({
      server: "https://api.example:8443",
      title: "Parts help",
      launcherLabel: "Parts help",
      accent: "#337778",
      position: "left",
      open: true,
      connect: "lazy",
    });
  });

  it("defaults the server to the script's own origin when data-server is empty or missing", () => {
    expect(readConfig(script({ "data-server": "" }), "https://shop.example/").server).toBe("https://cdn.partchat.example");
    expect(readConfig(script({}), "https://shop.example/").server).toBe("https://cdn.partchat.example");
    expect(readConfig(null, "https://shop.example/x").server).toBe("https://shop.example");
  });

  it("ignores an accent that is not a hex colour (no CSS injection)", () => {
    expect(readConfig(script({ "data-accent": "red; } * { display:none" }), "https://a.example/").accent).toBeNull();
  });

  it("derives readable text on the accent", () => {
    expect(themeVariables({ accent: "#337778" })["--pc-accent-contrast"]).toBe("#ffffff");
    expect(themeVariables({ accent: "#ffd166" })["--pc-accent-contrast"]).toBe("#111111");
    expect(contrastRatio("#337778", "#ffffff")).toBeGreaterThanOrEqual(4.5);
    expect(themeVariables({ accent: null })).toEqual({});
  });
});

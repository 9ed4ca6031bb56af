/**
 * The browser adapter: opens a URL with the desktop's opener, detached in a session of its
 * own so Ctrl-C on `ca serve` never reaches a browser it started. Fire and forget: a
 * missing opener or a failure is ignored, since the URL is already printed.
 */
import { spawn } from "node:child_process";

export type OpenBrowser = (url: string) => void;

export function createBrowserOpener(options: { platform: NodeJS.Platform; env: NodeJS.ProcessEnv }): OpenBrowser {
  return (url) => {
    const [file, ...args] = openerCommand(options.platform, url);
    try {
      const child = spawn(file!, args, { detached: true, stdio: "ignore", env: options.env, windowsHide: true });
      child.on("error", () => undefined);
      child.unref();
    } catch {
      // The URL is on stdout; opening it is a convenience.
    }
  };
}

function openerCommand(platform: NodeJS.Platform, url: string): string[] {
  if (platform === "darwin") return ["open", url];
  // `start` treats its first quoted argument as a window title.
  if (platform === "win32") return ["cmd", "/c", "start", '""', url.replace(/&/g, "^&")];
  return ["xdg-open", url];
}

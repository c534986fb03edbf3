// Debian's chromium (/usr/bin/chromium) driven by playwright-core: no browser is downloaded. Without it the
// browser suites skip with one printed line, except under CI, where its absence fails them
// (`.ci/run` installs it with scripts/install-chromium.sh).
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** The flags the browser runs with; playwright adds a fresh --user-data-dir of its own for every launch. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots and other artifacts of browser runs (gitignored). */
export const ARTIFACTS_DIR = path.resolve(__dirname, '..', '..', 'test-artifacts', 'portal');

const inCi = (): boolean => !!process.env.CI && !/^(0|false|no)$/i.test(process.env.CI);

/**
 * `describe` when chromium is there; else `describe.skip` with one printed line, or, under CI, a suite
 * whose single test fails naming the install script.
 */
export function describeWithBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  if (inCi()) {
    describe(name, () => {
      test('needs chromium', () => {
        throw new Error(`${CHROMIUM} is missing; CI installs it with scripts/install-chromium.sh`);
      });
    });
    return;
  }
  process.stdout.write(`${name}: skipped, ${CHROMIUM} is absent (bash scripts/install-chromium.sh installs it)\n`);
  describe.skip(name, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core on the page (WCAG 2.1 A and AA rules); evaluated through the debugging protocol, which the page's CSP does not govern. */
export async function axeViolations(page: Page, options: { exclude?: string[] } = {}): Promise<AxeViolation[]> {
  await page.evaluate(axe.source);
  return page.evaluate(async (exclude) => {
    const run = (window as unknown as { axe: typeof axe }).axe.run;
    const result = await run(exclude.length > 0 ? { exclude: exclude.map((s) => [s]) } : document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  }, options.exclude ?? []);
}

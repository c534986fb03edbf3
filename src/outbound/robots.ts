/**
 * robots.txt for the crawler: access rules (robots-parser), Crawl-delay, Sitemap, and
 * the ARD `Agentmap:` directive (ARD §6.1), which robots-parser does not expose.
 *
 * Status handling follows RFC 9309 §2.3.1:
 *   2xx              -> parse the file
 *   4xx (except 429) -> "unavailable": everything allowed
 *   429, 5xx, network error, timeout -> "unreachable": everything disallowed for now
 * An unreachable robots.txt must not be read as permission; the crawler retries later.
 */
import robotsParser from 'robots-parser';
import type { HttpClient } from './http-client';
import { OutboundError } from './errors';

export type RobotsStatus = 'ok' | 'unavailable' | 'unreachable';

export interface RobotsRules {
  /** The robots.txt URL asked for (rules apply to this origin even if it redirected). */
  readonly url: string;
  readonly status: RobotsStatus;
  /** HTTP status, or undefined when no response arrived. */
  readonly httpStatus: number | undefined;
  /**
   * May `userAgent` fetch `url`? Matching uses the product token (`ard-registry/0.1 (...)`
   * matches `User-agent: ard-registry`). URLs on another origin -> false.
   */
  isAllowed(url: string, userAgent: string): boolean;
  /** Absolute http(s) URLs from `Agentmap:` lines, in file order, de-duplicated. */
  agentmaps(): string[];
  sitemaps(): string[];
  /** Crawl-delay for this agent in ms, if the file sets one. */
  crawlDelayMs(userAgent: string): number | undefined;
}

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB; content beyond may be ignored. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

const AGENTMAP_LINE = /^\s*agentmap\s*:\s*(\S+)\s*$/i;

export function parseAgentmapLines(text: string, baseUrl: string): string[] {
  const found: string[] = [];
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = hash >= 0 ? rawLine.slice(0, hash) : rawLine;
    const match = AGENTMAP_LINE.exec(line);
    if (!match) continue;
    let resolved: URL;
    try {
      resolved = new URL(match[1]!, baseUrl);
    } catch {
      continue;
    }
    if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') continue;
    if (!found.includes(resolved.href)) found.push(resolved.href);
  }
  return found;
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

export function parseRobots(robotsUrl: string, text: string, httpStatus?: number): RobotsRules {
  const origin = new URL(robotsUrl).origin;
  const parser = robotsParser(robotsUrl, text);
  const agentmaps = parseAgentmapLines(text, robotsUrl);
  return {
    url: robotsUrl,
    status: 'ok',
    httpStatus,
    isAllowed: (url, userAgent) => sameOrigin(url, origin) && parser.isAllowed(url, userAgent) === true,
    agentmaps: () => [...agentmaps],
    sitemaps: () => parser.getSitemaps(),
    crawlDelayMs: (userAgent) => {
      const seconds = parser.getCrawlDelay(userAgent);
      return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds * 1000 : undefined;
    },
  };
}

function blanketRules(robotsUrl: string, status: 'unavailable' | 'unreachable', httpStatus?: number): RobotsRules {
  const origin = new URL(robotsUrl).origin;
  return {
    url: robotsUrl,
    status,
    httpStatus,
    isAllowed: (url) => status === 'unavailable' && sameOrigin(url, origin),
    agentmaps: () => [],
    sitemaps: () => [],
    crawlDelayMs: () => undefined,
  };
}

export interface FetchRobotsOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Fetches `${origin}/robots.txt`. Transport failures become `unreachable` rules rather
 * than errors; only a refused destination (BLOCKED_ADDRESS), a bad origin
 * (INVALID_URL/BAD_SCHEME), caller cancellation and a closed client are thrown,
 * since there is nothing to crawl in those cases.
 */
export async function fetchRobots(
  client: Pick<HttpClient, 'request'>,
  origin: string | URL,
  options: FetchRobotsOptions = {},
): Promise<RobotsRules> {
  let robotsUrl: string;
  try {
    robotsUrl = new URL('/robots.txt', origin).href;
  } catch (err) {
    throw new OutboundError('INVALID_URL', `invalid origin for robots.txt: ${String(origin)}`, {
      url: String(origin),
      cause: err,
    });
  }
  try {
    const res = await client.request({
      method: 'GET',
      url: robotsUrl,
      headers: { accept: 'text/plain, */*;q=0.1' },
      maxBytes: ROBOTS_MAX_BYTES,
      truncate: true,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    if (res.status >= 200 && res.status < 300) {
      return parseRobots(robotsUrl, res.body.toString('utf8'), res.status);
    }
    if (res.status === 429 || res.status >= 500) return blanketRules(robotsUrl, 'unreachable', res.status);
    // 4xx, and 3xx that could not be followed (no Location, 304 without a validator).
    return blanketRules(robotsUrl, 'unavailable', res.status);
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    switch (err.code) {
      case 'BLOCKED_ADDRESS':
      case 'INVALID_URL':
      case 'BAD_SCHEME':
      case 'ABORTED':
      case 'CLOSED':
        throw err;
      // RFC 9309 §2.3.1.2: more than five redirects may be treated as unavailable.
      case 'TOO_MANY_REDIRECTS':
      case 'REDIRECT_LOOP':
        return blanketRules(robotsUrl, 'unavailable');
      case 'TIMEOUT':
      case 'NETWORK':
      case 'BODY_TOO_LARGE':
      case 'INVALID_JSON':
        return blanketRules(robotsUrl, 'unreachable');
      default: {
        const unreachable: never = err.code;
        throw new Error(`unhandled outbound error code ${String(unreachable)}`);
      }
    }
  }
}

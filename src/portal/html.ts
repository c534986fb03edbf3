// HTML by tagged template: every interpolated value is escaped unless it is already Html (a nested
// template or `trustedHtml`), so a page cannot carry markup from an entry, a query or an error message.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** A value a template accepts: text (escaped), Html (kept), a list of those (joined), or nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] as string;
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] as string);
  });
  return new Html(out);
}

/** Markup written by this code (never from input). */
export function trustedHtml(text: string): Html {
  return new Html(text);
}

/** A URL for an href: http(s), mailto, or a path on this site; anything else (javascript:, data:) is dropped. */
export function safeHref(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const parsed = new URL(url);
    return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.toString() : undefined;
  } catch {
    return undefined;
  }
}

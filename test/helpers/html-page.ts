// Reads a served HTML page the way a test asks about it: elements by id, class or tag, their text and
// attributes (htmlparser2's DOM, the parser the crawler uses).
import { DomUtils, parseDocument } from 'htmlparser2';

type Element = ReturnType<typeof DomUtils.findAll>[number];

export class HtmlPage {
  private readonly doc;

  constructor(readonly source: string) {
    this.doc = parseDocument(source);
  }

  all(tag: string, where: (attrs: Record<string, string>) => boolean = () => true): Element[] {
    return DomUtils.findAll((e) => e.name === tag && where(e.attribs), this.doc.children);
  }

  byId(id: string): Element | null {
    return DomUtils.findOne((e) => e.attribs.id === id, this.doc.children);
  }

  byClass(className: string): Element[] {
    return DomUtils.findAll((e) => (e.attribs.class ?? '').split(/\s+/).includes(className), this.doc.children);
  }

  text(element: Element | null): string {
    return element ? DomUtils.textContent(element).replace(/\s+/g, ' ').trim() : '';
  }

  /** The names of the listed entries, in order. */
  entryNames(): string[] {
    return this.byClass('entry-name').map((e) => this.text(e));
  }

  /** The hrefs of the listed entries' names, in order. */
  entryLinks(): string[] {
    return this.byClass('entry-name').map((e) => DomUtils.findOne((a) => a.name === 'a', [e])?.attribs.href ?? '');
  }

  /** The link with `rel` (next, first) of the page's pagination. */
  rel(rel: string): string | undefined {
    return this.all('a', (a) => a.rel === rel)[0]?.attribs.href;
  }
}

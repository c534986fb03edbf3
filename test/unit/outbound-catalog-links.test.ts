import { findCatalogLinks } from '../../src/outbound';

const BASE = 'https://publisher.example/products/index.html';

describe('findCatalogLinks', () => {
  it('finds <link rel="ai-catalog"> in the head and resolves relative hrefs', () => {
    const html = `<!doctype html><html><head>
      <title>Acme</title>
      <link rel="stylesheet" href="/style.css">
      <link rel="ai-catalog" href="/.well-known/ai-catalog.json">
      <link rel="ai-catalog" href="catalogs/extra.json">
    </head><body><p>hi</p></body></html>`;
    expect(findCatalogLinks(html, BASE)).toEqual([
      'https://publisher.example/.well-known/ai-catalog.json',
      'https://publisher.example/products/catalogs/extra.json',
    ]);
  });

  it('follows <link rel="ard"> (ARD v0.91 §5.1, MUST) before rel="ai-catalog", whatever their order', () => {
    const html = `<head>
      <link rel="ai-catalog" href="/.well-known/ai-catalog.json">
      <link rel="ARD" href="/.well-known/ard.json">
      <link rel="ard ai-catalog" href="/both.json">
      <link rel="ardent" href="/not-this.json">
    </head>`;
    expect(findCatalogLinks(html, BASE)).toEqual([
      'https://publisher.example/.well-known/ard.json',
      'https://publisher.example/both.json',
      'https://publisher.example/.well-known/ai-catalog.json',
    ]);
  });

  it('matches ai-catalog among several space-separated, mixed-case rel tokens', () => {
    const html = `<head>
      <LINK REL="alternate  AI-Catalog" HREF="https://cdn.example/cat.json">
      <link rel="\tpreload\nai-catalog " href="/b.json">
      <link rel="ai-catalogue" href="/not-this.json">
      <link rel="x-ai-catalog" href="/nor-this.json">
    </head>`;
    expect(findCatalogLinks(html, BASE)).toEqual(['https://cdn.example/cat.json', 'https://publisher.example/b.json']);
  });

  it('ignores links in the body, after </head>, and on pages without <head>', () => {
    const html = `<html><head></head><body><link rel="ai-catalog" href="/in-body.json"></body></html>`;
    expect(findCatalogLinks(html, BASE)).toEqual([]);
    const implied = `<title>t</title><link rel="ai-catalog" href="/early.json"><p>text</p><link rel="ai-catalog" href="/late.json">`;
    expect(findCatalogLinks(implied, BASE)).toEqual(['https://publisher.example/early.json']);
  });

  it('honours <base href>, decodes entities, drops fragments and duplicates', () => {
    const html = `<head><base href="https://static.example/v2/">
      <link rel="ai-catalog" href="cat.json?a=1&amp;b=2#frag">
      <link rel="ai-catalog" href="https://static.example/v2/cat.json?a=1&b=2">
    </head>`;
    expect(findCatalogLinks(html, BASE)).toEqual(['https://static.example/v2/cat.json?a=1&b=2']);
  });

  it('skips links without href and non-http schemes', () => {
    const html = `<head>
      <link rel="ai-catalog">
      <link rel="ai-catalog" href="   ">
      <link rel="ai-catalog" href="javascript:alert(1)">
      <link rel="ai-catalog" href="ftp://files.example/cat.json">
      <link rel="ai-catalog" href="data:application/json,{}">
      <link rel="ai-catalog" href="http://[bad">
      <link rel="ai-catalog" href="//other.example/cat.json">
    </head>`;
    expect(findCatalogLinks(html, BASE)).toEqual(['https://other.example/cat.json']);
  });

  it('copes with malformed markup', () => {
    // Unquoted attributes, no closing tags, and a page cut off mid-tag (a truncated fetch).
    expect(findCatalogLinks('<head><link rel=ai-catalog href=/x.json><title>t<link rel="ai-catalog" href="/y', BASE)).toEqual([
      'https://publisher.example/x.json',
    ]);
    expect(findCatalogLinks('', BASE)).toEqual([]);
  });
});

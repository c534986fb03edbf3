import fs from 'node:fs';
import path from 'node:path';
import { validateCatalogEntry, validateManifestEnvelope } from '../../src/catalog/catalog-validator';
import { CORPUS_DIR, DEMO_MANIFESTS } from '../../src/ingest/demo-corpus';

const valid = {
  identifier: 'urn:air:acme.com:agent:assistant',
  displayName: 'Corporate Assistant',
  type: 'application/a2a-agent-card+json',
  url: 'https://api.acme.com/agents/assistant.json',
};

describe('catalog entry validation (ai-catalog.schema.json)', () => {
  it.each(DEMO_MANIFESTS)('accepts every entry of the demo corpus file %s', (file) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, file), 'utf8'));
    expect(validateManifestEnvelope(manifest)).toEqual([]);
    const problems = (manifest.entries as unknown[])
      .map((e, i) => [i, validateCatalogEntry(e)])
      .filter(([, p]) => (p as string[]).length > 0);
    expect(problems).toEqual([]);
    expect(manifest.entries.length).toBeGreaterThan(30);
  });

  it('accepts a minimal entry and one with data instead of url', () => {
    expect(validateCatalogEntry(valid)).toEqual([]);
    const { url: _url, ...rest } = valid;
    expect(validateCatalogEntry({ ...rest, data: { name: 'inline' } })).toEqual([]);
  });

  it('names a missing identifier', () => {
    const { identifier: _id, ...rest } = valid;
    expect(validateCatalogEntry(rest)).toEqual(["entry is missing required field 'identifier'"]);
  });

  it('explains a malformed URN (ARD §4.2.1)', () => {
    expect(validateCatalogEntry({ ...valid, identifier: 'acme-assistant' })).toEqual([
      'entry.identifier must be a URN of the form urn:air:<publisher>:<namespace>:<name> (ARD §4.2.1)',
    ]);
  });

  it('requires exactly one of url and data (ARD §3.4)', () => {
    const both = validateCatalogEntry({ ...valid, data: { name: 'x' } });
    expect(both).toEqual(['entry must have exactly one of "url" or "data" (ARD §3.4)']);
    const { url: _url, ...neither } = valid;
    expect(validateCatalogEntry(neither)).toEqual(['entry must have exactly one of "url" or "data" (ARD §3.4)']);
  });

  it('names a metadata value that is not a scalar', () => {
    const reasons = validateCatalogEntry({ ...valid, metadata: { ok: 1, regions: ['eu', 'us'] } });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^entry\.metadata\.regions must be /);
  });

  it('names a bad updatedAt', () => {
    expect(validateCatalogEntry({ ...valid, updatedAt: 'yesterday' })).toEqual(['entry.updatedAt must match format "date-time"']);
  });

  it('names the envelope problems of a manifest', () => {
    expect(validateManifestEnvelope({ entries: [] })).toEqual(["manifest is missing required field 'specVersion'"]);
    expect(validateManifestEnvelope({ specVersion: '1.0', entries: {} })).toEqual(['manifest.entries must be array']);
  });
});

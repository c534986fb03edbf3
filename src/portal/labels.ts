// Words a person reads in place of wire values. Only display: every value stays as the API gave it in
// URLs and requests, and a value without a label shows as it is.

const TYPE_LABELS: Record<string, string> = {
  'application/mcp-server-card+json': 'MCP server',
  'application/a2a-agent-card+json': 'A2A agent',
  'application/agent+json': 'Agent',
  'application/ai-skill': 'Skill',
  'application/ai-registry+json': 'Registry',
  'application/ai-catalog+json': 'Catalog',
  'application/vnd.alexandria.resource+json': 'Library resource',
};

export function typeLabel(type: string): string {
  return TYPE_LABELS[type] ?? type;
}

const FIELD_LABELS: Record<string, string> = {
  type: 'Type',
  tags: 'Tags',
  publisher: 'Publisher',
  capabilities: 'Tools and capabilities',
  version: 'Version',
  'trustManifest.attestations.type': 'Attestations',
};

/** A facet field's heading: a known field's name, else its last path segment in words (`metadata.serverType` -> "Server type"). */
export function fieldLabel(field: string): string {
  const known = FIELD_LABELS[field];
  if (known) return known;
  const last = field.split('.').pop() ?? field;
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : field;
}

/** A bucket value as shown: types get their label. */
export function valueLabel(field: string, value: string): string {
  return field === 'type' ? typeLabel(value) : value;
}

/** The URN's publisher segment (`urn:air:<publisher>:...`), as the API's `publisher` field reads it. */
export function publisherOf(identifier: string): string {
  return identifier.split(':')[2] ?? '';
}

/** The portal page of an entry; the colons of a URN stay readable. */
export function entryPath(identifier: string): string {
  return `/entry/${encodeURIComponent(identifier).replace(/%3A/gi, ':')}`;
}

/** The API route of an entry. */
export function entryApiPath(identifier: string): string {
  return `/agents/${encodeURIComponent(identifier)}`;
}

// What a server or agent can do, tool by tool: the tools of an MCP server card (`tools`: name, description,
// inputSchema) and the skills of an A2A agent card (`skills`: name, description, tags and examples, the last two
// indexed as part of the skill's description), read from
// the card an entry carries inline (`data`, ARD §4.3) or that the crawler fetched from its `url`. Indexed
// beside the entry (entries.tools, migration 0019), never part of the entry served.
import { storableText } from '../storable-text';
import { MEDIA_TYPES, type CatalogEntry } from './catalog-entry';
import { cjkGloss, hanCharacters, MAX_GLOSSED_CHARACTERS } from './cjk-glossary';

export interface EntryTool {
  name: string;
  /**
   * As indexed: the card's text (a skill's with its tags and examples), then the English senses of its Chinese words;
   * '' when the card gives none.
   */
  description: string;
}

/**
 * How much of a card is kept. A card is not rejected for exceeding them: the tools past the limit are left
 * out and long texts cut. LiveMCPBench's 70 servers list at most 35 tools, descriptions up to 3,866
 * characters (median 61); docs/ingestion.md "Tools".
 */
export const TOOL_LIMITS = {
  tools: 256,
  nameCharacters: 256,
  descriptionCharacters: 1024,
  /** All descriptions of one entry together: what one entry adds to the lexical index. */
  entryDescriptionCharacters: 32 * 1024,
  /**
   * Chinese characters of one card's descriptions read for their English senses (cjk-glossary.ts): a card of 21 tools
   * described in Chinese holds ~950; reading 32 K of them took 0.3-0.6 s, a card of 40 tools of 1,024 now 10-25 ms.
   */
  glossedCharacters: 4000,
} as const;

/** The card types whose tools are read, and the member that lists them. */
const TOOL_LISTS: Readonly<Record<string, 'tools' | 'skills'>> = {
  [MEDIA_TYPES.mcpServer]: 'tools',
  [MEDIA_TYPES.a2aAgent]: 'skills',
};

/** Whether entries of this type describe their tools in a card (MCP server card, A2A agent card). */
export function hasToolCard(type: string): boolean {
  return TOOL_LISTS[type] !== undefined;
}

/** The tools a card of `type` lists, within TOOL_LIMITS; [] for a card without a readable list. */
export function toolsOfCard(type: string, card: unknown): EntryTool[] {
  const member = TOOL_LISTS[type];
  if (!member || !isObject(card) || !Array.isArray(card[member])) return [];
  const tools: EntryTool[] = [];
  const seen = new Set<string>();
  let budget: number = TOOL_LIMITS.entryDescriptionCharacters;
  let glossBudget: number = TOOL_LIMITS.glossedCharacters;
  for (const item of card[member] as unknown[]) {
    if (tools.length >= TOOL_LIMITS.tools) break;
    if (!isObject(item)) continue;
    // An A2A skill's `name` is for people ("Route planner"), its `id` the token; either names it.
    const rawName = typeof item.name === 'string' && item.name.trim() !== '' ? item.name : typeof item.id === 'string' ? item.id : '';
    // Cut first, then made storable: a cut may split a surrogate pair, and a fetched card may hold NULs.
    const name = storableText(rawName.trim().slice(0, TOOL_LIMITS.nameCharacters));
    if (name === '' || seen.has(name)) continue;
    seen.add(name);
    const limit = Math.max(0, Math.min(budget, TOOL_LIMITS.descriptionCharacters));
    const text = storableText(describedBy(item, member).slice(0, limit));
    const description = describedWithSenses(text, glossBudget);
    glossBudget -= hanCharacters(text);
    budget -= description.length;
    tools.push({ name, description });
  }
  return tools;
}

/**
 * A tool's text: its `description`, and for an A2A skill its `tags` and `examples` (A2A AgentSkill), which say in
 * the words of users what the skill is for ("Tags: maps, routing", "Examples: plan a route for three stops").
 */
function describedBy(item: Record<string, unknown>, member: 'tools' | 'skills'): string {
  const description = typeof item.description === 'string' ? item.description.trim() : '';
  if (member === 'tools') return description;
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()) : [];
  const tags = strings(item.tags);
  const examples = strings(item.examples);
  return [description, tags.length > 0 ? `Tags: ${tags.join(', ')}.` : '', examples.length > 0 ? `Examples: ${examples.join('; ')}.` : '']
    .filter((part) => part !== '')
    .join(' ');
}

/**
 * A tool's text with the English senses of its Chinese words on a line of their own (cjk-glossary.ts): "获取微博热搜榜"
 * is found by 微博 through its bigrams and by "popular search" through its senses. Indexed like the rest of the text
 * (weight D); only tool names are ever shown (`@matchedTools`).
 */
function describedWithSenses(text: string, characters: number): string {
  const senses = characters > 0 ? cjkGloss([text], undefined, Math.min(characters, MAX_GLOSSED_CHARACTERS)) : '';
  return senses === '' ? text : `${text}\n${senses}.`;
}

/** The tools of the card an entry carries inline (`data`); [] when it has none. */
export function inlineTools(entry: CatalogEntry): EntryTool[] {
  return toolsOfCard(entry.type, entry.data);
}

/** Whether two tool lists are the same, in the same order. */
export function sameTools(a: readonly EntryTool[], b: readonly EntryTool[]): boolean {
  return a.length === b.length && a.every((t, i) => t.name === b[i].name && t.description === b[i].description);
}

/** A stored `entries.tools` value read back; anything malformed is left out. */
export function storedTools(value: unknown): EntryTool[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((t: unknown) =>
    isObject(t) && typeof t.name === 'string'
      ? [{ name: t.name, description: typeof t.description === 'string' ? t.description : '' }]
      : [],
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// A vector per tool (decision 0037, docs/relevance.md "Tools"): what is embedded for each tool, and how its cosine
// raises the entry's.
import { TOOL_TEXT_CHARACTERS, TOOL_VECTORS_PER_ENTRY, toolEmbeddingTexts } from '../../src/embedding/entry-texts';
import { TOOL_COSINE_WEIGHT, withToolCosine } from '../../src/search/relevance';

describe('toolEmbeddingTexts', () => {
  it('writes the name in words (camelCase and _./- split) before the description', () => {
    expect(
      toolEmbeddingTexts([
        { name: 'getWeatherForecast', description: 'Forecast for a city.' },
        { name: 'search_flights.one-way', description: '  Find one-way flights.  ' },
        { name: 'ping', description: '' },
      ]),
    ).toEqual(['get Weather Forecast: Forecast for a city.', 'search flights one way: Find one-way flights.', 'ping']);
  });

  it(`keeps the first ${TOOL_VECTORS_PER_ENTRY} tools and the start of a long description`, () => {
    const tools = Array.from({ length: TOOL_VECTORS_PER_ENTRY + 5 }, (_, i) => ({ name: `t${i}`, description: 'x'.repeat(2000) }));
    const texts = toolEmbeddingTexts(tools);
    expect(texts).toHaveLength(TOOL_VECTORS_PER_ENTRY);
    expect(texts[0]).toBe(`t0: ${'x'.repeat(TOOL_TEXT_CHARACTERS)}`);
  });
});

describe('withToolCosine', () => {
  it('raises the cosine toward a better tool by TOOL_COSINE_WEIGHT of the difference, never lowers it', () => {
    expect(withToolCosine(0.4, 0.8)).toBeCloseTo(0.4 + TOOL_COSINE_WEIGHT * 0.4, 12);
    expect(withToolCosine(0.6, 0.5)).toBe(0.6);
    expect(withToolCosine(0.6, null)).toBe(0.6);
  });
});

import {
  canonicalJson,
  contentHash,
  publisherOf,
  searchableText,
  splitIdentifierWords,
  isValidIdentifier,
} from '../../src/catalog/catalog-entry';

describe('catalog entry helpers', () => {
  it('publisherOf: the <publisher> segment of the URN, lower-cased (ARD §4.2.1, §7.1)', () => {
    expect(publisherOf('urn:air:Acme.COM:agent:assistant')).toBe('acme.com');
    expect(publisherOf('urn:air:noaa.gov:api:climate-data-online')).toBe('noaa.gov');
  });

  it('isValidIdentifier follows the catalog schema pattern', () => {
    expect(isValidIdentifier('urn:air:acme.com:agent:assistant')).toBe(true);
    expect(isValidIdentifier('urn:air:acme.com')).toBe(false);
    expect(isValidIdentifier('acme.com:agent')).toBe(false);
  });

  it('canonicalJson sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('contentHash is stable under key order and changes with content or host', () => {
    const entry = { identifier: 'urn:air:a.com:x:y', displayName: 'Y', type: 't', url: 'https://a.com/y', tags: ['p', 'q'] };
    const reordered = { tags: ['p', 'q'], url: 'https://a.com/y', type: 't', displayName: 'Y', identifier: 'urn:air:a.com:x:y' };
    expect(contentHash(entry, undefined)).toBe(contentHash(reordered, undefined));
    expect(contentHash(entry, undefined)).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash({ ...entry, tags: ['q', 'p'] }, undefined)).not.toBe(contentHash(entry, undefined));
    expect(contentHash(entry, { displayName: 'Host' })).not.toBe(contentHash(entry, undefined));
  });

  it('splitIdentifierWords reads tool names as words', () => {
    expect(splitIdentifierWords('get_weather_forecast')).toBe('get weather forecast');
    expect(splitIdentifierWords('getWeatherForecast')).toBe('get Weather Forecast');
    expect(splitIdentifierWords('WeatherTool')).toBe('Weather Tool');
    expect(splitIdentifierWords('repo/list-issues.v2')).toBe('repo list issues v2');
  });

  it('searchableText joins name, description, tags and split capabilities, one per line', () => {
    const text = searchableText({
      identifier: 'urn:air:a.com:x:y',
      displayName: 'Weather',
      type: 't',
      description: 'Forecasts',
      tags: ['climate', 'rain'],
      capabilities: ['get_forecast'],
      representativeQueries: ['will it rain', 'weather tomorrow'],
    });
    expect(text).toBe('Weather\nForecasts\nclimate, rain\nget forecast');
  });
});

/**
 * The registry's only outbound HTTP surface (crawler + federation). See docs/outbound-http.md.
 */
export { createHttpClient, parseHttpUrl, DEFAULTS as HTTP_CLIENT_DEFAULTS, BODY_COPY_THRESHOLD } from './http-client';
export type {
  HttpClient,
  HttpClientOptions,
  HttpMethod,
  OutboundRequest,
  OutboundResponse,
  TextResponse,
  JsonResponse,
  HelperOptions,
} from './http-client';
export {
  createAddressPolicy,
  createVettingLookup,
  resolveAndVet,
  classifyAddress,
  isLocalHostname,
  parseIp,
  systemResolver,
} from './address-policy';
export type { AddressPolicy, AddressPolicyOptions, ResolvedAddress, Resolver } from './address-policy';
export { OutboundError, OutboundTimeoutError, BodyTooLargeError, BlockedAddressError, isOutboundError } from './errors';
export type { OutboundErrorCode, TimeoutPhase, BlockReason } from './errors';
export { createHostLimiter, HostLimiterClearedError } from './host-limiter';
export type { HostLimiter, HostLimiterOptions } from './host-limiter';
export { fetchRobots, parseRobots, parseAgentmapLines, ROBOTS_MAX_BYTES } from './robots';
export type { RobotsRules, RobotsStatus, FetchRobotsOptions } from './robots';
export { findCatalogLinks, AI_CATALOG_REL, ARD_REL } from './catalog-links';
export { createDnsClient, readSvcbData, DnsQueryError, DNS_MAX_ANSWER_BYTES } from './dns-client';
export type { DnsClient, DnsClientOptions, SvcbRecord } from './dns-client';

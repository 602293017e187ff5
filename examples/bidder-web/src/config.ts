// The settings the server put into the page (server.ts): where the API answers, the Api-Key, the house.
export interface PageConfig {
  baseUrl: string;
  apiKey: string;
  tenant: string;
  /** Origins the page may load lot images from (the server's CSP allows them); an image elsewhere stays a link. */
  imageOrigins: string[];
}

export function readConfig(): PageConfig {
  const element = document.getElementById('bidder-web-config');
  const config = JSON.parse(element?.textContent ?? '{}') as Omit<PageConfig, 'baseUrl'> & { baseUrl: string | null };
  return { ...config, baseUrl: config.baseUrl ?? location.origin, imageOrigins: config.imageOrigins ?? [] };
}

// The settings the server put into the page (server.ts): where the API answers, the Api-Key, the house.
export interface PageConfig {
  baseUrl: string;
  apiKey: string;
  tenant: string;
}

export function readConfig(): PageConfig {
  const element = document.getElementById('bidder-web-config');
  const config = JSON.parse(element?.textContent ?? '{}') as { baseUrl: string | null; apiKey: string; tenant: string };
  return { ...config, baseUrl: config.baseUrl ?? location.origin };
}

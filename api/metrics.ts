/**
 * Instance counters for GET /metrics: requests by route id and status
 * class, and problems by code. No actor, tenant or object ids.
 */
/** "0xx".."9xx", built once rather than per request. */
const STATUS_CLASSES = Array.from({ length: 10 }, (_, i) => `${i}xx`);

export class Metrics {
  private requests = 0;
  private readonly byRoute = new Map<string, number>();
  private readonly byStatus = new Map<string, number>();
  private readonly byProblem = new Map<string, number>();
  private readonly started = Date.now();

  count(routeId: string | undefined, status: number, problem: string | undefined): void {
    this.requests++;
    bump(this.byRoute, routeId ?? "unmatched");
    bump(this.byStatus, STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`);
    if (problem) bump(this.byProblem, problem);
  }

  snapshot(): Record<string, unknown> {
    return {
      uptime_sec: Math.floor((Date.now() - this.started) / 1000),
      requests_total: this.requests,
      requests_by_route: Object.fromEntries(this.byRoute),
      requests_by_status: Object.fromEntries(this.byStatus),
      problems_by_code: Object.fromEntries(this.byProblem),
    };
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

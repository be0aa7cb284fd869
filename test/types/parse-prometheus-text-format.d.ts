declare module "parse-prometheus-text-format" {
  export interface MetricSample {
    readonly labels?: Record<string, string>
    readonly value?: string
    readonly quantiles?: Record<string, string>
    readonly count?: string
    readonly sum?: string
  }

  export interface MetricFamily {
    readonly name: string
    readonly help: string
    readonly type: string
    readonly metrics: ReadonlyArray<MetricSample>
  }

  export default function parsePrometheusTextFormat(text: string): Array<MetricFamily>
}

export const schemaPath: string;
export const outputPath: string;
export function generate(): Promise<string>;

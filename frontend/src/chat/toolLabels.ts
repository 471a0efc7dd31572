/** Human labels for tool activity ("Checking whether PS11752778 fits WDT780SAEM1…"). */
import type { ToolCall } from "./types";

function s(input: Record<string, unknown> | null, key: string): string | null {
  const v = input?.[key];
  return typeof v === "string" && v.trim() ? v.trim() : null;
}

function list(input: Record<string, unknown> | null, key: string): string[] {
  const v = input?.[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "") : [];
}

function countParts(output: Record<string, unknown> | undefined): number | null {
  if (!output) return null;
  if (Array.isArray(output.parts)) return output.parts.length;
  if (Array.isArray(output.candidates)) return output.candidates.length;
  return null;
}

interface Phrase {
  running: string;
  done: string;
  failed: string;
}

function phrase(tool: Pick<ToolCall, "toolName" | "input" | "output">): Phrase {
  // Stored history has no tool input: the output echoes most of it (query, partNumber, model).
  const input: Record<string, unknown> = { ...(tool.output ?? {}), ...(tool.input ?? {}) };
  const part = s(input, "partNumber");
  const model = s(input, "model");
  const forModel = model ? ` for ${model}` : "";
  switch (tool.toolName) {
    case "search_parts": {
      const q = s(input, "query");
      const what = q ? `parts for '${q}'${forModel}` : `parts${forModel}`;
      const n = countParts(tool.output);
      return {
        running: `Searching ${what}…`,
        done: n === null ? `Searched ${what}` : `Searched ${what}: ${n} found`,
        failed: `Could not search ${what}`,
      };
    }
    case "check_compatibility": {
      const what = `whether ${part ?? "the part"} fits ${model ?? "your model"}`;
      return { running: `Checking ${what}…`, done: `Checked ${what}`, failed: `Could not check ${what}` };
    }
    case "get_part_details": {
      const what = part ?? "the part";
      return { running: `Looking up ${what}…`, done: `Looked up ${what}`, failed: `Could not look up ${what}` };
    }
    case "get_installation_instructions": {
      const what = `installation steps for ${part ?? "the part"}`;
      return { running: `Finding ${what}…`, done: `Found ${what}`, failed: `Could not find ${what}` };
    }
    case "diagnose_repair": {
      const symptoms = list(input, "symptoms");
      const what = symptoms.length ? `'${symptoms.join(", ")}'` : "the problem";
      return {
        running: `Diagnosing ${what}${forModel}…`,
        done: `Diagnosed ${what}${forModel}`,
        failed: `Could not diagnose ${what}${forModel}`,
      };
    }
    case "extract_information":
      return { running: "Reading your message…", done: "Read your message", failed: "Could not read your message" };
    default: {
      const name = tool.toolName.replace(/_/g, " ");
      return { running: `Running ${name}…`, done: `Ran ${name}`, failed: `${name} failed` };
    }
  }
}

export function toolLabel(tool: Pick<ToolCall, "toolName" | "input" | "output" | "status">): string {
  const p = phrase(tool);
  return tool.status === "running" ? p.running : tool.status === "done" ? p.done : p.failed;
}

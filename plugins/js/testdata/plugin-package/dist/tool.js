// A stand-in for the real package, laid out the same way; its tool()
// marks the description so a test can tell which module was bundled.
import { z } from "zod";
export function tool(input) {
    return { ...input, description: input.description + " (from the project's package)" };
}
tool.schema = z;

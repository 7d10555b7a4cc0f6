import { tool } from "@opencode-ai/plugin"
import { readFile, writeFile } from "node:fs/promises"
import path from "node:path"

export default tool({
  description: "Copies a file",
  args: { from: tool.schema.string(), to: tool.schema.string() },
  async execute(args, context) {
    const text = await readFile(path.join(context.directory, args.from), "utf8")
    await writeFile(args.to, text.toUpperCase())
    return `copied ${text.length} bytes; uuid ${crypto.randomUUID().length}; ${new TextDecoder().decode(new TextEncoder().encode("é"))}`
  },
})

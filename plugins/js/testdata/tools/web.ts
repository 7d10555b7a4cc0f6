import { tool } from "@opencode-ai/plugin"

export default tool({
  description: "Fetch a URL",
  args: { url: tool.schema.string() },
  async execute(args) {
    const res = await fetch(args.url, { headers: { "x-test": "1" } })
    const u = new URL(args.url)
    return `${res.status} ${await res.text()} ${u.pathname} ${res.headers.get("X-Reply")}`
  },
})

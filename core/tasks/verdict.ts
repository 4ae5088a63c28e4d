/** One condition a checker tested, with what it expected and what it found. */
export interface CheckCondition { name: string; ok: boolean; expected?: string; found?: string }
/** A checker's answer: ok is the verdict; conditions say why. */
export interface CheckVerdict { ok: boolean; conditions: CheckCondition[] }

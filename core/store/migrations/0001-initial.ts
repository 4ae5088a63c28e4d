import type { WritableDB } from '../db.js';

/**
 * The trajectory store's first schema. Times are epoch milliseconds; JSON columns hold JSON text.
 * Screenshots and accessibility trees are content-addressed by the SHA-256 of their bytes (PNG, and
 * the XML's UTF-8), so a frame seen a thousand times is stored once.
 */
export function up(db: WritableDB): void {
  db.exec(`
    CREATE TABLE devices (
      id INTEGER PRIMARY KEY,
      serial TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL CHECK (kind IN ('simdroid', 'emulator', 'device')),
      width INTEGER NOT NULL,
      height INTEGER NOT NULL,
      density REAL NOT NULL,
      first_seen INTEGER NOT NULL,
      last_seen INTEGER NOT NULL
    ) STRICT;

    -- Filled from the registry when this build knows the template; imported data of a template it
    -- does not know keeps what the file says (possibly only the id).
    CREATE TABLE task_templates (
      id TEXT PRIMARY KEY,
      app TEXT,
      apps TEXT NOT NULL DEFAULT '[]',
      difficulty TEXT CHECK (difficulty IN ('easy', 'medium', 'hard')),
      kind TEXT CHECK (kind IN ('completion', 'information_retrieval')),
      tags TEXT NOT NULL DEFAULT '[]',
      template TEXT,
      in_registry INTEGER NOT NULL DEFAULT 0 CHECK (in_registry IN (0, 1))
    ) STRICT;
    CREATE INDEX task_templates_app ON task_templates (app);

    CREATE TABLE task_instances (
      id INTEGER PRIMARY KEY,
      template_id TEXT NOT NULL REFERENCES task_templates (id),
      seed INTEGER NOT NULL,
      params TEXT NOT NULL,
      instruction TEXT NOT NULL,
      UNIQUE (template_id, seed, params)
    ) STRICT;

    CREATE TABLE runs (
      id INTEGER PRIMARY KEY,
      uid TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL CHECK (kind IN ('suite', 'single', 'training', 'import')),
      name TEXT NOT NULL,
      config TEXT NOT NULL DEFAULT '{}',
      status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
      created_at INTEGER NOT NULL,
      finished_at INTEGER
    ) STRICT;
    CREATE INDEX runs_created ON runs (created_at);

    CREATE TABLE screenshots (
      sha256 TEXT PRIMARY KEY,
      png BLOB NOT NULL,
      width INTEGER NOT NULL,
      height INTEGER NOT NULL,
      bytes INTEGER NOT NULL
    ) STRICT;

    -- xml_deflate: raw DEFLATE (RFC 1951) of the XML, level 6; bytes: the XML's uncompressed size.
    CREATE TABLE ui_trees (
      sha256 TEXT PRIMARY KEY,
      xml_deflate BLOB NOT NULL,
      bytes INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE episodes (
      id INTEGER PRIMARY KEY,
      uid TEXT NOT NULL UNIQUE,
      run_id INTEGER NOT NULL REFERENCES runs (id),
      instance_id INTEGER NOT NULL REFERENCES task_instances (id),
      device_id INTEGER REFERENCES devices (id),
      policy TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('running', 'success', 'failure', 'error', 'interrupted')),
      success INTEGER CHECK (success IN (0, 1)),
      terminated_by TEXT,
      answer TEXT,
      error_name TEXT,
      error_message TEXT,
      steps_count INTEGER NOT NULL DEFAULT 0,
      max_steps INTEGER,
      started_at INTEGER NOT NULL,
      finished_at INTEGER,
      timings TEXT,
      final_screenshot TEXT REFERENCES screenshots (sha256),
      final_tree TEXT REFERENCES ui_trees (sha256)
    ) STRICT;
    -- The episode table pages newest-first, by status, by run, and by instance (template filters).
    CREATE INDEX episodes_started ON episodes (started_at, id);
    CREATE INDEX episodes_status_started ON episodes (status, started_at);
    CREATE INDEX episodes_run_status ON episodes (run_id, status);
    CREATE INDEX episodes_instance_status ON episodes (instance_id, status);

    CREATE TABLE steps (
      id INTEGER PRIMARY KEY,
      episode_id INTEGER NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
      idx INTEGER NOT NULL CHECK (idx >= 0),
      raw TEXT NOT NULL,
      action TEXT,
      action_type TEXT,
      description TEXT,
      thought TEXT,
      candidates TEXT,
      error_name TEXT,
      error_message TEXT,
      overridden INTEGER NOT NULL DEFAULT 0 CHECK (overridden IN (0, 1)),
      foreground_package TEXT NOT NULL,
      foreground_activity TEXT NOT NULL,
      target TEXT,
      timings TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      screenshot TEXT REFERENCES screenshots (sha256),
      tree TEXT REFERENCES ui_trees (sha256),
      UNIQUE (episode_id, idx)
    ) STRICT;

    -- One value per (step, kind): outcome, ADMIRE, ProgRM, … each recomputable on its own.
    CREATE TABLE step_rewards (
      episode_id INTEGER NOT NULL,
      step_idx INTEGER NOT NULL,
      kind TEXT NOT NULL,
      value REAL NOT NULL,
      explanation TEXT NOT NULL DEFAULT '',
      PRIMARY KEY (episode_id, step_idx, kind),
      FOREIGN KEY (episode_id, step_idx) REFERENCES steps (episode_id, idx) ON DELETE CASCADE
    ) STRICT, WITHOUT ROWID;
  `);
}

/**
 * The system content providers tasks read and write through `content query|insert|update|delete`:
 * Contacts (ContactsContract, simplified to raw_contacts + data, as contacts2.db stores them) and
 * Telephony SMS (mmssms.db). Each URI maps onto a table or view of the provider's database; the
 * selection (`--where`) and sort order are SQL, as a real provider passes them to SQLite.
 */
export const CONTACTS_DB = '/data/data/com.android.providers.contacts/databases/contacts2.db';
export const SMS_DB = '/data/data/com.android.providers.telephony/databases/mmssms.db';
/** The call log lives in the contacts provider's package, in its own database (CallLogProvider). */
export const CALLLOG_DB = '/data/data/com.android.providers.contacts/databases/calllog.db';
/** MediaProvider's index of shared storage (Android 11+ ships it as the media module). */
export const MEDIA_DB = '/data/data/com.android.providers.media.module/databases/external.db';

export const MIME = {
  name: 'vnd.android.cursor.item/name',
  phone: 'vnd.android.cursor.item/phone_v2',
  email: 'vnd.android.cursor.item/email_v2',
  organization: 'vnd.android.cursor.item/organization',
  note: 'vnd.android.cursor.item/note',
} as const;

export const CONTACTS_SCHEMA = `
CREATE TABLE raw_contacts (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_type TEXT,
  display_name TEXT,
  starred INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0,
  times_contacted INTEGER NOT NULL DEFAULT 0,
  last_time_contacted INTEGER,
  custom_ringtone TEXT
);
CREATE TABLE data (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  raw_contact_id INTEGER NOT NULL REFERENCES raw_contacts(_id) ON DELETE CASCADE,
  mimetype TEXT NOT NULL,
  is_primary INTEGER NOT NULL DEFAULT 0,
  data1 TEXT, data2 TEXT, data3 TEXT, data4 TEXT
);
CREATE TRIGGER name_insert AFTER INSERT ON data WHEN new.mimetype = '${MIME.name}'
BEGIN UPDATE raw_contacts SET display_name = new.data1 WHERE _id = new.raw_contact_id; END;
CREATE TRIGGER name_update AFTER UPDATE OF data1 ON data WHEN new.mimetype = '${MIME.name}'
BEGIN UPDATE raw_contacts SET display_name = new.data1 WHERE _id = new.raw_contact_id; END;
CREATE TRIGGER raw_contact_delete AFTER DELETE ON raw_contacts
BEGIN DELETE FROM data WHERE raw_contact_id = old._id; END;
CREATE VIEW view_contacts AS
  SELECT _id, display_name, starred, times_contacted, last_time_contacted, custom_ringtone,
         (SELECT COUNT(*) FROM data d WHERE d.raw_contact_id = r._id AND d.mimetype = '${MIME.phone}') > 0 AS has_phone_number
  FROM raw_contacts r WHERE deleted = 0;
CREATE VIEW view_data AS
  SELECT d._id, d.raw_contact_id, d.raw_contact_id AS contact_id, r.display_name, d.mimetype, d.is_primary,
         d.data1, d.data2, d.data3, d.data4
  FROM data d JOIN raw_contacts r ON r._id = d.raw_contact_id WHERE r.deleted = 0;
CREATE VIEW view_phones AS
  SELECT _id, raw_contact_id, contact_id, contact_id AS person, display_name, data1, data1 AS number,
         data2, data2 AS type, is_primary
  FROM view_data WHERE mimetype = '${MIME.phone}';
CREATE VIEW view_emails AS
  SELECT _id, raw_contact_id, contact_id, display_name, data1, data1 AS address, data2, data2 AS type
  FROM view_data WHERE mimetype = '${MIME.email}';
`;

export const SMS_SCHEMA = `
CREATE TABLE threads (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  recipient_ids TEXT UNIQUE NOT NULL,
  date INTEGER NOT NULL DEFAULT 0,
  message_count INTEGER NOT NULL DEFAULT 0,
  snippet TEXT,
  read INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE sms (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id INTEGER,
  address TEXT,
  person INTEGER,
  date INTEGER NOT NULL DEFAULT 0,
  date_sent INTEGER NOT NULL DEFAULT 0,
  read INTEGER NOT NULL DEFAULT 0,
  seen INTEGER NOT NULL DEFAULT 0,
  status INTEGER NOT NULL DEFAULT -1,
  type INTEGER NOT NULL DEFAULT 1,
  body TEXT,
  service_center TEXT,
  locked INTEGER NOT NULL DEFAULT 0,
  error_code INTEGER NOT NULL DEFAULT 0
);
-- One thread per address, created on first message (Telephony's getOrCreateThreadId).
CREATE TRIGGER sms_thread AFTER INSERT ON sms WHEN new.thread_id IS NULL
BEGIN
  INSERT OR IGNORE INTO threads (recipient_ids) VALUES (new.address);
  UPDATE sms SET thread_id = (SELECT _id FROM threads WHERE recipient_ids = new.address) WHERE _id = new._id;
END;
CREATE TRIGGER sms_thread_stats AFTER INSERT ON sms
BEGIN
  UPDATE threads SET date = MAX(date, new.date), snippet = new.body,
    message_count = (SELECT COUNT(*) FROM sms WHERE address = new.address)
  WHERE recipient_ids = new.address;
END;
`;

export const CALLLOG_SCHEMA = `
CREATE TABLE calls (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  number TEXT,
  date INTEGER,
  duration INTEGER,
  type INTEGER,
  new INTEGER DEFAULT 1,
  name TEXT,
  is_read INTEGER DEFAULT 0
);
`;

/** The columns of MediaProvider's files table that tasks read (media_type: 1 image, 2 audio, 3 video). */
export const MEDIA_SCHEMA = `
CREATE TABLE files (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  _data TEXT,
  _display_name TEXT,
  _size INTEGER,
  mime_type TEXT,
  media_type INTEGER DEFAULT 0,
  is_download INTEGER DEFAULT 0,
  date_added INTEGER,
  date_modified INTEGER,
  title TEXT
);
`;

/** The providers' databases, by the package that owns them (what `pm clear <provider>` wipes and recreates). */
export const PROVIDER_DATABASES: ReadonlyArray<{ package: string; path: string; schema: string }> = [
  { package: 'com.android.providers.contacts', path: CONTACTS_DB, schema: CONTACTS_SCHEMA },
  { package: 'com.android.providers.contacts', path: CALLLOG_DB, schema: CALLLOG_SCHEMA },
  { package: 'com.android.providers.telephony', path: SMS_DB, schema: SMS_SCHEMA },
  { package: 'com.android.providers.media.module', path: MEDIA_DB, schema: MEDIA_SCHEMA },
];

/** How one content URI maps onto SQL. */
export interface ProviderTable {
  db: string;
  /** Table or view read by `query`. */
  view: string;
  /** Table written by `insert`, `update`, `delete`. */
  table: string;
  /** Extra condition for this URI (e.g. `type = 1` for the inbox). */
  where?: string;
  /** Values forced on insert through this URI. */
  insertDefaults?: Record<string, string | number>;
  /** Default sort order. */
  sort?: string;
}

/**
 * Telephony's default order is `date DESC`. Rows of the same millisecond (SimDroid's clock only moves with
 * device time, so texts delivered back to back share one) come newest-inserted first, which is what "the most
 * recent message" means to AndroidWorld's checks (`content query --uri content://sms/inbox` row 0).
 */
const NEWEST_FIRST = 'date DESC, _id DESC';

const sms = (where: string | undefined, type: number | undefined): ProviderTable => ({
  db: SMS_DB,
  view: 'sms',
  table: 'sms',
  ...(where ? { where } : {}),
  ...(type !== undefined ? { insertDefaults: { type } } : {}),
  sort: NEWEST_FIRST,
});

const media = (where: string): ProviderTable => ({ db: MEDIA_DB, view: 'files', table: 'files', where });

/** URIs by authority and path (without `content://`, no trailing slash). */
export const PROVIDER_URIS: Record<string, ProviderTable> = {
  'com.android.contacts/contacts': { db: CONTACTS_DB, view: 'view_contacts', table: 'raw_contacts', sort: 'display_name' },
  'com.android.contacts/raw_contacts': { db: CONTACTS_DB, view: 'raw_contacts', table: 'raw_contacts' },
  'com.android.contacts/data': { db: CONTACTS_DB, view: 'view_data', table: 'data' },
  'com.android.contacts/data/phones': { db: CONTACTS_DB, view: 'view_phones', table: 'data', insertDefaults: { mimetype: MIME.phone } },
  'com.android.contacts/data/emails': { db: CONTACTS_DB, view: 'view_emails', table: 'data', insertDefaults: { mimetype: MIME.email } },
  // The legacy Contacts.People URIs AndroidWorld's helpers query.
  'contacts/people': { db: CONTACTS_DB, view: 'view_contacts', table: 'raw_contacts', sort: 'display_name' },
  'contacts/phones': { db: CONTACTS_DB, view: 'view_phones', table: 'data', insertDefaults: { mimetype: MIME.phone } },
  sms: sms(undefined, undefined),
  'sms/inbox': sms('type = 1', 1),
  'sms/sent': sms('type = 2', 2),
  'sms/draft': sms('type = 3', 3),
  'sms/outbox': sms('type = 4', 4),
  'sms/conversations': { db: SMS_DB, view: 'threads', table: 'threads', sort: NEWEST_FIRST },
  'call_log/calls': { db: CALLLOG_DB, view: 'calls', table: 'calls', sort: NEWEST_FIRST },
  'media/external/file': { db: MEDIA_DB, view: 'files', table: 'files' },
  'media/external/images/media': media('media_type = 1'),
  'media/external/audio/media': media('media_type = 2'),
  'media/external/video/media': media('media_type = 3'),
  'media/external/downloads': media('is_download = 1'),
};

/** Resolves `content://authority/path[/id]` to its table and an optional row id. */
export function resolveUri(uri: string): { table: ProviderTable; id?: number } | undefined {
  const m = /^content:\/\/(.+?)\/?$/.exec(uri.trim());
  if (!m) return undefined;
  const path = m[1]!;
  const direct = PROVIDER_URIS[path];
  if (direct) return { table: direct };
  const idm = /^(.*)\/(\d+)$/.exec(path);
  if (idm && PROVIDER_URIS[idm[1]!]) return { table: PROVIDER_URIS[idm[1]!]!, id: Number(idm[2]) };
  return undefined;
}

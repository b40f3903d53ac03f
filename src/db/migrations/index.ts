// Every migration, in order. Append-only: a migration that has landed is never edited
// (docs/conventions.md 9); a change is a new entry. Kysely runs them by name, in this order.
import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_users.ts';
import * as m0002 from './0002_oauth.ts';
import * as m0003 from './0003_items.ts';
import * as m0004 from './0004_services.ts';
import * as m0005 from './0005_views.ts';
import * as m0006 from './0006_item_counters.ts';
import * as m0008 from './0008_sign_in_limits.ts';
import * as m0010 from './0010_tracker_tokens.ts';
import * as m0011 from './0011_imports.ts';
import * as m0012 from './0012_location_history.ts';
import * as m0013 from './0013_account_data.ts';
import * as m0014 from './0014_auth_version.ts';
import * as m0015 from './0015_service_imports.ts';
import * as m0016 from './0016_publish_state.ts';
import * as m0019 from './0019_privacy_zones.ts';
import * as m0020 from './0020_restore_counts.ts';
import * as m0021 from './0021_history_days.ts';
import * as m0023 from './0023_cell_level_16.ts';
import * as m0025 from './0025_position_rows.ts';
import * as m0026 from './0026_cell_log.ts';
import * as m0027 from './0027_cell_level_17.ts';
import * as m0028 from './0028_cells_covering.ts';
import * as m0029 from './0029_import_worker_deaths.ts';
import * as m0032 from './0032_public_copies.ts';
import * as m0033 from './0033_visits.ts';
import * as m0034 from './0034_search.ts';
import * as m0035 from './0035_tracker_activity.ts';
import * as m0037 from './0037_visit_spans.ts';
import * as m0039 from './0039_post_media.ts';
import * as m0040 from './0040_delivery_edits.ts';
import * as m0041 from './0041_media_file_names.ts';
import * as m0043 from './0043_service_connections.ts';
import * as m0044 from './0044_public_time_zone.ts';
import * as m0045 from './0045_location_lock_order.ts';
import * as m0049 from './0049_search_statistics.ts';
import * as m0050 from './0050_location_batches.ts';
import * as m0051 from './0051_position_cells.ts';
import * as m0052 from './0052_cells_from_finest.ts';
import * as m0053 from './0053_service_app_registrations.ts';

export const migrations: Record<string, Migration> = {
  '0001_users': m0001,
  '0002_oauth': m0002,
  '0003_items': m0003,
  '0004_services': m0004,
  '0005_views': m0005,
  '0006_item_counters': m0006,
  '0008_sign_in_limits': m0008,
  '0010_tracker_tokens': m0010,
  '0011_imports': m0011,
  '0012_location_history': m0012,
  '0013_account_data': m0013,
  '0014_auth_version': m0014,
  '0015_service_imports': m0015,
  '0016_publish_state': m0016,
  '0019_privacy_zones': m0019,
  '0020_restore_counts': m0020,
  '0021_history_days': m0021,
  '0023_cell_level_16': m0023,
  '0025_position_rows': m0025,
  '0026_cell_log': m0026,
  '0027_cell_level_17': m0027,
  '0028_cells_covering': m0028,
  '0029_import_worker_deaths': m0029,
  '0032_public_copies': m0032,
  '0033_visits': m0033,
  '0034_search': m0034,
  '0035_tracker_activity': m0035,
  '0037_visit_spans': m0037,
  '0039_post_media': m0039,
  '0040_delivery_edits': m0040,
  '0041_media_file_names': m0041,
  '0043_service_connections': m0043,
  '0044_public_time_zone': m0044,
  '0045_location_lock_order': m0045,
  '0049_search_statistics': m0049,
  '0050_location_batches': m0050,
  '0051_position_cells': m0051,
  '0052_cells_from_finest': m0052,
  '0053_service_app_registrations': m0053,
};

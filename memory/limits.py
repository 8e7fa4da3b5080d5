"""Every size limit on what agents and producers hand to Cortex, in one place: the services
check against these, the API serializers document them, the models size their columns with
them. (Formula parameters, thresholds and batch sizes of the jobs live in config/decay.yaml;
the two operator-tunable limits of Layer 1 are settings, defaulting to the values here.)"""

from __future__ import annotations

# Layer 1 (memory.services.event_input); settings CORTEX_MAX_BATCH and CORTEX_MAX_PAYLOAD_BYTES.
EVENT_BATCH = 1000
EVENT_PAYLOAD_BYTES = 1024 * 1024
EVENT_SOURCE_ID_CHARS = 512
EVENT_TEXT_CHARS = 255  # type, subtype, actor, project and each correlation part
EVENT_PAGE = 100  # GET /api/events/: default page size
EVENT_PAGE_MAX = 1000
IDEMPOTENCY_KEY_CHARS = 255

# Identifiers.
SOURCE_CHARS = 200  # an agent's source, an observation's source
ULID_CHARS = 26
NAMESPACE_CHARS = 255
ENTITY_KEY_CHARS = 460  # namespace:slug
ROW_ID_MAX = 2**63 - 1  # a bigint primary key (a page cursor that is a row id)

# The read endpoints (recall, context, entities).
RECALL_QUERY_CHARS = 2000
CONTEXT_QUERY_CHARS = 20_000
FILTER_CHARS = 300  # a project or actor filter
ENTITY_PAGE = 100
ENTITY_PAGE_MAX = 500

# Observations (memory.services.observations).
OBSERVATION_BATCH = 5000
OBSERVATION_CATEGORY_CHARS = 64
OBSERVATION_TOPIC_CHARS = 300
OBSERVATION_ACTORS = 50
OBSERVATION_ACTOR_CHARS = 500  # each string of an actor
OBSERVATION_CORRELATION_CHARS = 500
OBSERVATION_EVENT_IDS = 1000
OBSERVATION_DEDUP_KEY_CHARS = 255
OBSERVATION_PAYLOAD_BYTES = 64 * 1024
OBSERVATION_DEPTH = 32
PROFILE_NAME_CHARS = 200  # counterpart, speaker

# Working sets (memory.services.working_set); a session key is at most SESSION_KEY_CHARS.
SESSION_KEY_CHARS = 200
MEM_ID_CHARS = 200
WORKING_CONTENT_CHARS = 10_000
TURN_MAX = 10**12
WORKING_SET_PAGE = 500
WORKING_SET_PAGE_MAX = 5000

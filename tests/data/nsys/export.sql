-- A hand-written stand-in for an Nsight Systems SQLite export (`nsys export --type sqlite`): the
-- tables and columns `atoll import nsys` reads, with the same two iterations as cuda_gpu_trace.csv
-- (times in ns; copyKind 1 host-to-device, 2 device-to-host). Real exports hold many more tables and
-- columns. The test builds the database from this file with Python's sqlite3 module.
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (10, 'void conv_kernel<float, 3>(float const*, float*)'), (11, 'relu_kernel');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, demangledName INTEGER, shortName INTEGER, gridX INTEGER, gridY INTEGER,
  gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER,
  staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1004000, 1024500, 0, 1, 7, 102, 10, 10, 264, 1, 1, 256, 1, 1, 64, 49152, 0),
  (1025000, 1028250, 0, 1, 7, 103, 11, 11, 132, 1, 1, 1024, 1, 1, 16, 0, 0),
  (2004000, 2025000, 0, 1, 7, 202, 10, 10, 264, 1, 1, 256, 1, 1, 64, 49152, 0),
  (2025500, 2029000, 0, 1, 7, 203, 11, 11, 132, 1, 1, 1024, 1, 1, 16, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (1000000, 1002500, 0, 1, 7, 101, 602112, 1, 0, 1), (1030000, 1031500, 0, 1, 7, 105, 4000, 2, 1, 0),
  (2000000, 2002400, 0, 1, 7, 201, 602112, 1, 0, 1), (2030500, 2031900, 0, 1, 7, 205, 4000, 2, 1, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, value INTEGER, bytes INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1029000, 1029750, 0, 1, 7, 104, 0, 4096), (2029500, 2030300, 0, 1, 7, 204, 0, 4096);

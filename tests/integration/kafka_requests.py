# kafka_requests.py: Kafka requests that kafka-python 2.0.2 has no classes for, defined with its
# kafka.protocol Struct and Schema types from Kafka's message definitions
# (clients/src/main/resources/common/message/): AlterReplicaLogDirs v1 and DescribeLogDirs v1,
# neither flexible. Sent by kafka-python's own KafkaClient, unmodified, so the wire bytes are its.
# Debian's python3-kafka imports only under /usr/bin/python3.
import time

from kafka.client_async import KafkaClient
from kafka.protocol.api import Request, Response
from kafka.protocol.types import Array, Boolean, Int16, Int32, Int64, Schema, String


# AlterReplicaLogDirsResponse.json, version 1 (the same as 0).
class AlterReplicaLogDirsResponse_v1(Response):
    API_KEY = 34
    API_VERSION = 1
    SCHEMA = Schema(
        ('throttle_time_ms', Int32),
        ('results', Array(
            ('topic_name', String('utf-8')),
            ('partitions', Array(
                ('partition_index', Int32),
                ('error_code', Int16))))))


# AlterReplicaLogDirsRequest.json, version 1.
class AlterReplicaLogDirsRequest_v1(Request):
    API_KEY = 34
    API_VERSION = 1
    RESPONSE_TYPE = AlterReplicaLogDirsResponse_v1
    SCHEMA = Schema(
        ('dirs', Array(
            ('path', String('utf-8')),
            ('topics', Array(
                ('name', String('utf-8')),
                ('partitions', Array(Int32)))))))


# DescribeLogDirsResponse.json, version 1 (the last before the flexible versions).
class DescribeLogDirsResponse_v1(Response):
    API_KEY = 35
    API_VERSION = 1
    SCHEMA = Schema(
        ('throttle_time_ms', Int32),
        ('results', Array(
            ('error_code', Int16),
            ('log_dir', String('utf-8')),
            ('topics', Array(
                ('name', String('utf-8')),
                ('partitions', Array(
                    ('partition_index', Int32),
                    ('partition_size', Int64),
                    ('offset_lag', Int64),
                    ('is_future_key', Boolean))))))))


# DescribeLogDirsRequest.json, version 1; topics None asks for every topic.
class DescribeLogDirsRequest_v1(Request):
    API_KEY = 35
    API_VERSION = 1
    RESPONSE_TYPE = DescribeLogDirsResponse_v1
    SCHEMA = Schema(
        ('topics', Array(
            ('topic', String('utf-8')),
            ('partitions', Array(Int32)))))


class Connection:
    """One kafka-python KafkaClient connected to the broker at `address`."""

    def __init__(self, address, timeout_s=20):
        self.client = KafkaClient(bootstrap_servers=address, request_timeout_ms=timeout_s * 1000)
        self.timeout_s = timeout_s
        deadline = time.time() + timeout_s
        while True:
            self.node = self.client.least_loaded_node()
            if self.node is not None and self.client.ready(self.node):
                break
            if time.time() > deadline:
                raise SystemExit("no connection to " + address)
            self.client.poll(timeout_ms=100)

    def send(self, request):
        future = self.client.send(self.node, request)
        self.client.poll(future=future, timeout_ms=self.timeout_s * 1000)
        if future.failed():
            raise future.exception
        if not future.succeeded():
            raise SystemExit("no answer to " + type(request).__name__)
        return future.value

    def close(self):
        self.client.close()


def alter_replica_log_dir(connection, topic, partition, path):
    """Moves one replica to `path` (or "any"); the partition's error code."""
    response = connection.send(AlterReplicaLogDirsRequest_v1(dirs=[(path, [(topic, [partition])])]))
    for _name, partitions in response.results:
        for _index, error_code in partitions:
            return error_code
    raise SystemExit("AlterReplicaLogDirs answered no partition")


def log_dirs_of(connection, topic, partition):
    """The (log dir, is_future) pairs hosting one replica, from DescribeLogDirs v1."""
    response = connection.send(DescribeLogDirsRequest_v1(topics=[(topic, [partition])]))
    found = []
    for _error, log_dir, topics in response.results:
        for name, partitions in topics:
            for index, _size, _lag, is_future in partitions:
                if name == topic and index == partition:
                    found.append((log_dir, is_future))
    return found


def wait_until_in(connection, topic, partition, path, timeout_s=30):
    """Waits until DescribeLogDirs shows the replica in `path` only, its move complete."""
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if log_dirs_of(connection, topic, partition) == [(path, False)]:
            return True
        time.sleep(0.05)
    return False

#!/usr/bin/python3
# kafka_admin_client.py: one admin operation sent by kafka-python's KafkaAdminClient, unmodified
# (or, for a replica move, by its KafkaClient with the request classes of kafka_requests.py), for
# kafka_listener_test.cpp and kafka_admin_listener_test.cpp. Prints one JSON line:
# {"error_code": N, "message": TEXT, ...} with what the operation read.
# Debian's python3-kafka imports only under /usr/bin/python3.
#
#   kafka_admin_client.py ADDR create NAME PARTITIONS REPLICATION [validate] [assign=BROKER]
#   kafka_admin_client.py ADDR delete NAME
#   kafka_admin_client.py ADDR partitions NAME COUNT [validate] [assign=BROKER]
#   kafka_admin_client.py ADDR describe-configs BROKER [KEY ...]   ("configs": {KEY: {...}})
#   kafka_admin_client.py ADDR describe-topic-configs TOPIC [KEY ...]   (the same, of a topic)
#   kafka_admin_client.py ADDR alter-configs BROKER [KEY=VALUE ...]
#   kafka_admin_client.py ADDR move NAME PARTITION DIR   (waits for the move; "log_dirs": [...])
import json
import os
import sys

from kafka import KafkaAdminClient
from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic
from kafka.errors import KafkaError

# kafka_requests.py lives beside this script; importing it leaves no __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kafka_requests  # noqa: E402


def assignment_of(flags):
    for flag in flags:
        if flag.startswith("assign="):
            return int(flag.split("=", 1)[1])
    return None


def run(client, address, op, args):
    """The operation's extra output fields; raises KafkaError for a refusal."""
    if op == "create":
        name, partitions, replication, flags = args[0], int(args[1]), int(args[2]), args[3:]
        broker = assignment_of(flags)
        assignments = None if broker is None else {0: [broker]}
        topic = NewTopic(name, partitions, replication, replica_assignments=assignments)
        client.create_topics([topic], validate_only="validate" in flags)
        return {}
    if op == "delete":
        response = client.delete_topics([args[0]])
        return {"error_code": response.topic_error_codes[0][1]}
    if op == "partitions":
        name, count, flags = args[0], int(args[1]), args[2:]
        broker = assignment_of(flags)
        assignments = None if broker is None else [[broker]]
        client.create_partitions({name: NewPartitions(count, assignments)},
                                 validate_only="validate" in flags)
        return {}
    if op in ("describe-configs", "describe-topic-configs"):
        # kafka-python reads the keys asked for from the configs dict's keys.
        keys = {key: None for key in args[1:]} or None
        kind = ConfigResourceType.BROKER if op == "describe-configs" else ConfigResourceType.TOPIC
        resource = ConfigResource(kind, args[0], configs=keys)
        responses = client.describe_configs([resource], include_synonyms=True)
        configs = {}
        error_code, message = 0, ""
        for response in responses:
            for code, text, _type, _name, entries in response.resources:
                error_code, message = code, text or ""
                for name, value, read_only, source, sensitive, synonyms in entries:
                    configs[name] = {"value": value, "read_only": read_only, "source": source,
                                     "sensitive": sensitive,
                                     "synonyms": [[s[1], s[2]] for s in synonyms]}
        return {"error_code": error_code, "message": message, "configs": configs}
    if op == "alter-configs":
        configs = dict(entry.split("=", 1) for entry in args[1:])
        response = client.alter_configs([ConfigResource(ConfigResourceType.BROKER, args[0],
                                                        configs=configs)])
        code, text, _type, _name = response.resources[0]
        return {"error_code": code, "message": text or ""}
    if op == "move":
        name, partition, path = args[0], int(args[1]), args[2]
        connection = kafka_requests.Connection(address)
        try:
            code = kafka_requests.alter_replica_log_dir(connection, name, partition, path)
            if code == 0:
                kafka_requests.wait_until_in(connection, name, partition, path)
            dirs = kafka_requests.log_dirs_of(connection, name, partition)
        finally:
            connection.close()
        return {"error_code": code, "log_dirs": [[d, future] for d, future in dirs]}
    raise SystemExit("unknown operation " + op)


def main(argv):
    address, op = argv[1], argv[2]
    client = KafkaAdminClient(bootstrap_servers=address, request_timeout_ms=20000)
    out = {"error_code": 0, "message": ""}
    try:
        out.update(run(client, address, op, argv[3:]))
    except KafkaError as e:
        out = {"error_code": getattr(e, "errno", -1), "message": str(e)}
    finally:
        client.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/python3
# kafka_produce.py: the torture test's Kafka client. confluent-kafka's Producer (librdkafka),
# unmodified, sends the messages of standard input ("KEY<TAB>VALUE" lines) to one partition
# through the broker's Kafka listener with acks=all and no retries, so that each message is
# written once or not at all. Prints one JSON line per message, as its delivery report gives it:
# {"key": KEY, "offset": N} or {"key": KEY, "error": TEXT}; then {"done": true}.
# Debian's python3-confluent-kafka imports only under /usr/bin/python3.
#
#   kafka_produce.py HOST:PORT TOPIC PARTITION < messages
import json
import os
import sys

from confluent_kafka import KafkaException, Producer


def emit(report):
    # One write(2) per line: librdkafka logs to stderr, which shares this file, from its own
    # threads, and print() may write a line and its newline apart, letting a log line in between.
    os.write(1, (json.dumps(report) + "\n").encode())


def main():
    address, topic, partition = sys.argv[1], sys.argv[2], int(sys.argv[3])
    producer = Producer({
        "bootstrap.servers": address,
        "acks": "all",
        "retries": 0,
        "enable.idempotence": False,
        "message.timeout.ms": 5000,
        "socket.timeout.ms": 5000,
        "linger.ms": 5,
    })

    def report(err, msg):
        key = msg.key().decode()
        if err is not None:
            emit({"key": key, "error": str(err)})
        else:
            emit({"key": key, "offset": msg.offset()})

    for line in sys.stdin:
        key, value = line.rstrip("\n").split("\t", 1)
        try:
            producer.produce(topic, value=value.encode(), key=key.encode(), partition=partition,
                             on_delivery=report)
        except (BufferError, KafkaException) as e:
            emit({"key": key, "error": "not sent: " + str(e)})
        producer.poll(0)
    left = producer.flush(15)
    emit({"done": left == 0, "undelivered": left})


if __name__ == "__main__":
    main()

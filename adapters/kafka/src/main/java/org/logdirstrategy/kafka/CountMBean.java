package org.logdirstrategy.kafka;

/** One number of the agent's figures, read when asked (Kafka's own meters name theirs Count too). */
public interface CountMBean {
  long getCount();
}

/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.config.VitessSourceConfig;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.streaming.api.lineage.DatasetConfigFacet;
import org.apache.flink.streaming.api.lineage.LineageDataset;
import org.apache.flink.streaming.api.lineage.LineageDatasetFacet;
import org.apache.flink.streaming.api.lineage.SourceLineageVertex;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The source's datasets for Flink's lineage graph (FLIP-314), one per table it reads, in the
 * OpenLineage naming style: namespace {@code vitess://<vtgate host:port>}, name
 * {@code <keyspace>.<table>} (so together {@code vitess://<vtgate>/<keyspace>.<table>}). A table
 * regular expression is a dataset named {@code <keyspace>.<regex>} (the tables it matches are known
 * only once the job runs); no table selection at all is the keyspace, named {@code <keyspace>}.
 * Each dataset carries a {@code config} facet: keyspace, table or pattern, shards, tablet type and
 * startup mode — never credentials or TLS material.
 *
 * <p>The vertex and datasets are this class's own small implementations of Flink's lineage
 * interfaces, not Flink's {@code Default*} classes, which Flink 1.20 does not have: the same code
 * serves every supported Flink line.
 */
@Internal
final class VitessLineage {

    static final String SCHEME = "vitess://";

    private VitessLineage() {}

    static SourceLineageVertex vertex(VitessSourceConfig config, Boundedness boundedness) {
        Vertex vertex = new Vertex(boundedness);
        String namespace = namespace(config.address());
        for (String keyspace : config.keyspaces()) {
            VitessSourceConfig own = config.forKeyspace(keyspace);
            for (String table : own.tables()) {
                vertex.datasets.add(dataset(namespace, keyspace + "." + table, own, "table", table));
            }
            for (String pattern : own.tablePatterns()) {
                vertex.datasets.add(dataset(namespace, keyspace + "." + pattern, own, "table-pattern", pattern));
            }
            if (own.tables().isEmpty() && own.tablePatterns().isEmpty()) {
                vertex.datasets.add(dataset(namespace, keyspace, own, "table-pattern", ".*"));
            }
        }
        return vertex;
    }

    /** {@code vitess://host:port}, whatever scheme the address was given with. */
    static String namespace(String address) {
        String hostPort = address.replaceFirst("^[a-zA-Z][a-zA-Z0-9+.-]*://", "");
        int slash = hostPort.indexOf('/');
        return SCHEME + (slash >= 0 ? hostPort.substring(0, slash) : hostPort);
    }

    private static LineageDataset dataset(
            String namespace, String name, VitessSourceConfig config, String selectionKey, String selection) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("keyspace", config.keyspace());
        settings.put(selectionKey, selection);
        settings.put("shards", config.shards().isEmpty() ? "all" : String.join(",", config.shards()));
        settings.put("tablet-type", config.tabletType() == null ? "primary" : config.tabletType());
        settings.put("startup-mode", config.startupMode().name());
        Map<String, LineageDatasetFacet> facets = new LinkedHashMap<>();
        ConfigFacet facet = new ConfigFacet(settings);
        facets.put(facet.name(), facet);
        return new Dataset(name, namespace, facets);
    }

    /** Names of every dataset of a vertex, {@code namespace/name}, for logs and tests. */
    static List<String> qualifiedNames(SourceLineageVertex vertex) {
        List<String> names = new ArrayList<>();
        vertex.datasets().forEach(d -> names.add(d.namespace() + "/" + d.name()));
        return names;
    }

    private static final class Vertex implements SourceLineageVertex {
        private final Boundedness boundedness;
        private final List<LineageDataset> datasets = new ArrayList<>();

        Vertex(Boundedness boundedness) {
            this.boundedness = boundedness;
        }

        @Override
        public Boundedness boundedness() {
            return boundedness;
        }

        @Override
        public List<LineageDataset> datasets() {
            return datasets;
        }
    }

    private record Dataset(String name, String namespace, Map<String, LineageDatasetFacet> facets)
            implements LineageDataset {}

    private static final class ConfigFacet implements DatasetConfigFacet {
        private final Map<String, String> config;

        ConfigFacet(Map<String, String> config) {
            this.config = config;
        }

        @Override
        public Map<String, String> config() {
            return config;
        }

        @Override
        public String name() {
            return "config";
        }
    }
}

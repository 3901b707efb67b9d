/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job's exception history, read through the MiniCluster's REST API as a user reads it in
 * Flink's web UI: one entry per failure, so a job that failed once without a restart has one, and
 * one restarted three times before it gave up has four.
 */
public final class ExceptionHistory {

    private ExceptionHistory() {}

    /** The failures of {@code job} on {@code cluster} so far. */
    public static int failures(MiniClusterExtension cluster, JobID job) throws Exception {
        Configuration client = cluster.getClientConfiguration();
        URI uri = URI.create("http://" + client.get(RestOptions.ADDRESS) + ":" + client.get(RestOptions.PORT) + "/jobs/"
                + job + "/exceptions");
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s: %s", uri, response.body()).isEqualTo(200);
        return new ObjectMapper()
                .readTree(response.body())
                .path("exceptionHistory")
                .path("entries")
                .size();
    }
}

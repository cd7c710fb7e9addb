/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's authorization table, and the polkit files that back it. */
#include <gio/gio.h>

#include "jmem-file.h"
#include "jmem-names.h"
#include "jmem-polkit.h"

static const struct {
  const char *method;
  const char *action;
} expected[] = {
  { "GetNvMapClients",             "dev.jmem.read-nvmap" },
  { "GetNvMapAllocations",         "dev.jmem.read-allocations" },
  { "GetNvMapAllocationsSnapshot", "dev.jmem.read-allocations" },
  { "GetNvMapMapsSnapshot",        "dev.jmem.read-nvmap" },
  { "DropCaches",                  "dev.jmem.drop-caches" },
};

static void
test_methods_need_their_action (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const char *action = NULL;

      g_assert_cmpint (jmem_polkit_gate_lookup (JMEM_DBUS_INTERFACE, expected[i].method, &action),
                       ==, JMEM_GATE_POLKIT);
      g_assert_cmpstr (action, ==, expected[i].action);
    }
}

static void
test_every_interface_method_is_in_the_table (void)
{
  g_autofree char *xml = NULL;
  g_autoptr(GDBusNodeInfo) node = NULL;
  g_autoptr(GError) error = NULL;
  GDBusInterfaceInfo *iface;

  /* A method added to the XML but not to the table would be refused by
   * default; catch it here rather than in the field. */
  g_assert_true (jmem_file_read_capped (JMEM_DBUS_XML, 1 << 20, &xml, NULL, &error));
  g_assert_no_error (error);
  node = g_dbus_node_info_new_for_xml (xml, &error);
  g_assert_no_error (error);
  iface = g_dbus_node_info_lookup_interface (node, JMEM_DBUS_INTERFACE);
  g_assert_nonnull (iface);
  for (guint i = 0; iface->methods[i] != NULL; i++)
    {
      const char *action = NULL;

      g_assert_cmpint (jmem_polkit_gate_lookup (JMEM_DBUS_INTERFACE, iface->methods[i]->name, &action),
                       ==, JMEM_GATE_POLKIT);
      g_assert_true (g_str_has_prefix (action, "dev.jmem."));
    }
}

static void
test_unknown_is_denied (void)
{
  static const char *const calls[][2] = {
    { JMEM_DBUS_INTERFACE, "Nope" },
    { JMEM_DBUS_INTERFACE, "getnvmapclients" },
    { JMEM_DBUS_INTERFACE, "GetNvMapClients " },
    { JMEM_DBUS_INTERFACE, "" },
    { "dev.jmem.Helper2", "GetNvMapClients" },
    { "org.freedesktop.DBus.Properties", "Set" },
    { "org.freedesktop.DBus.Introspectable", "Introspect" },
    { "", "DropCaches" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      const char *action = "unset";

      g_assert_cmpint (jmem_polkit_gate_lookup (calls[i][0], calls[i][1], &action), ==, JMEM_GATE_DENY);
      g_assert_null (action);
    }
  {
    const char *action = "unset";
    g_assert_cmpint (jmem_polkit_gate_lookup (NULL, "DropCaches", &action), ==, JMEM_GATE_DENY);
    g_assert_cmpint (jmem_polkit_gate_lookup (JMEM_DBUS_INTERFACE, NULL, &action), ==, JMEM_GATE_DENY);
    g_assert_null (action);
  }
}

static void
test_property_reads_are_open (void)
{
  const char *action = "unset";

  g_assert_cmpint (jmem_polkit_gate_lookup ("org.freedesktop.DBus.Properties", "Get", &action),
                   ==, JMEM_GATE_ALLOW);
  g_assert_null (action);
  g_assert_cmpint (jmem_polkit_gate_lookup ("org.freedesktop.DBus.Properties", "GetAll", &action),
                   ==, JMEM_GATE_ALLOW);
}

/* The actions the table asks about exist in the installed policy with the
 * defaults the design names, and the rules file grants each to the group. */
static void
test_policy_file_declares_each_action (void)
{
  g_autofree char *policy = NULL;
  g_autofree char *rules = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (jmem_file_read_capped (JMEM_POLKIT_POLICY, 1 << 20, &policy, NULL, &error));
  g_assert_true (jmem_file_read_capped (JMEM_POLKIT_RULES, 1 << 20, &rules, NULL, &error));
  g_assert_no_error (error);

  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *id = g_strdup_printf ("<action id=\"%s\">", expected[i].action);
      g_autofree char *quoted = g_strdup_printf ("\"%s\"", expected[i].action);
      const char *start = strstr (policy, id);
      const char *end;
      g_autofree char *block = NULL;

      g_assert_nonnull (start);
      end = strstr (start, "</action>");
      g_assert_nonnull (end);
      block = g_strndup (start, (gsize) (end - start));
      g_assert_nonnull (strstr (block, "<allow_any>auth_admin</allow_any>"));
      g_assert_nonnull (strstr (block, "<allow_inactive>auth_admin</allow_inactive>"));
      g_assert_nonnull (strstr (block, "<allow_active>auth_admin_keep</allow_active>"));

      g_assert_nonnull (strstr (rules, quoted));
    }
  g_assert_nonnull (strstr (rules, "subject.isInGroup(\"" JMEM_GROUP "\")"));
  g_assert_null (strstr (rules, "@PRIVILEGED_GROUP@"));
  g_assert_null (strstr (rules, "@METRICS_GROUP@"));

  /* the metrics account's group: one rule, for dev.jmem.read-nvmap alone
   * (the e2e-metrics-group test asks the real polkitd) */
  {
    const char *needle = "subject.isInGroup(\"" JMEM_METRICS_GROUP "\")";
    const char *grant = strstr (rules, needle);
    const char *start, *end;
    g_autofree char *rule = NULL;
    g_auto(GStrv) parts = g_strsplit (rules, needle, -1);

    g_assert_nonnull (grant);
    g_assert_cmpuint (g_strv_length (parts), ==, 2);
    for (start = grant; start > rules && !g_str_has_prefix (start, "polkit.addRule"); start--)
      ;
    end = strstr (grant, "});");
    g_assert_nonnull (end);
    rule = g_strndup (start, (gsize) (end - start));
    g_assert_nonnull (strstr (rule, "action.id == \"dev.jmem.read-nvmap\" &&"));
    g_assert_null (strstr (rule, "read-allocations"));
    g_assert_null (strstr (rule, "drop-caches"));
    g_assert_null (strstr (rule, "||"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/helper/polkit/methods-need-their-action", test_methods_need_their_action);
  g_test_add_func ("/helper/polkit/every-interface-method-in-table", test_every_interface_method_is_in_the_table);
  g_test_add_func ("/helper/polkit/unknown-is-denied", test_unknown_is_denied);
  g_test_add_func ("/helper/polkit/property-reads-are-open", test_property_reads_are_open);
  g_test_add_func ("/helper/polkit/policy-file-declares-each-action", test_policy_file_declares_each_action);
  return g_test_run ();
}

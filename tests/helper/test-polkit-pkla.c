/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The .pkla that polkit 0.105 reads grants exactly the actions the policy
 * declares, to the configured group, and dev.jmem.read-nvmap to the
 * metrics account's group, without a password. Both files are
 * parsed the way polkit parses them: the policy as XML, the .pkla as a
 * GKeyFile. */
#include <gio/gio.h>

#include "jmem-file.h"

static void
collect_action_id (GMarkupParseContext *context,
                   const char          *element,
                   const char         **names,
                   const char         **values,
                   gpointer             user_data,
                   GError             **error)
{
  GPtrArray *ids = user_data;

  if (g_strcmp0 (element, "action") != 0)
    return;
  for (gsize i = 0; names[i] != NULL; i++)
    if (g_str_equal (names[i], "id"))
      g_ptr_array_add (ids, g_strdup (values[i]));
}

static GPtrArray *
policy_action_ids (void)
{
  static const GMarkupParser parser = { .start_element = collect_action_id };
  g_autofree char *xml = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GMarkupParseContext) context = NULL;
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);

  g_assert_true (jmem_file_read_capped (JMEM_POLKIT_POLICY, 1 << 20, &xml, NULL, &error));
  g_assert_no_error (error);
  context = g_markup_parse_context_new (&parser, 0, ids, NULL);
  g_assert_true (g_markup_parse_context_parse (context, xml, -1, &error));
  g_assert_no_error (error);
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
  return ids;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* The actions section @section grants to @identity, sorted, checking
 * that it grants them without a password in every session state. */
static GPtrArray *
section_actions (GKeyFile *pkla, const char *section, const char *identity)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) actions = NULL;
  g_autofree char *who = g_key_file_get_string (pkla, section, "Identity", &error);
  GPtrArray *got = g_ptr_array_new_with_free_func (g_free);
  gsize n_actions = 0;

  g_assert_no_error (error);
  g_assert_cmpstr (who, ==, identity);
  actions = g_key_file_get_string_list (pkla, section, "Action", &n_actions, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < n_actions; i++)
    g_ptr_array_add (got, g_strdup (actions[i]));
  g_ptr_array_sort (got, compare_strings);

  for (const char *const *key = (const char *const[]) { "ResultAny", "ResultInactive", "ResultActive", NULL };
       *key != NULL; key++)
    {
      g_autofree char *result = g_key_file_get_string (pkla, section, *key, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (result, ==, "yes");
    }
  return got;
}

/* Two sections and no more (a third could grant something unseen): every
 * action of the policy to the group, and to the metrics account's group
 * dev.jmem.read-nvmap alone, not the allocations or a cache drop. */
static void
test_pkla_grants_the_policy_actions_to_the_group (void)
{
  g_autoptr(GPtrArray) want = policy_action_ids ();
  g_autoptr(GKeyFile) pkla = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) groups = NULL;
  g_autoptr(GPtrArray) group_actions = NULL;
  g_autoptr(GPtrArray) metrics_actions = NULL;
  gsize n_groups = 0;

  g_assert_cmpuint (want->len, ==, 3);
  g_assert_true (g_key_file_load_from_file (pkla, JMEM_POLKIT_PKLA, G_KEY_FILE_NONE, &error));
  g_assert_no_error (error);

  groups = g_key_file_get_groups (pkla, &n_groups);
  g_assert_cmpuint (n_groups, ==, 2);

  group_actions = section_actions (pkla, groups[0], "unix-group:" JMEM_GROUP);
  g_ptr_array_sort (want, compare_strings);
  g_assert_cmpuint (group_actions->len, ==, want->len);
  for (guint i = 0; i < want->len; i++)
    g_assert_cmpstr (group_actions->pdata[i], ==, want->pdata[i]);

  metrics_actions = section_actions (pkla, groups[1], "unix-group:" JMEM_METRICS_GROUP);
  g_assert_cmpuint (metrics_actions->len, ==, 1);
  g_assert_cmpstr (metrics_actions->pdata[0], ==, "dev.jmem.read-nvmap");
  g_assert_cmpstr (JMEM_METRICS_GROUP, !=, JMEM_GROUP);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/polkit/pkla/grants-the-policy-actions-to-the-group",
                   test_pkla_grants_the_policy_actions_to_the_group);
  return g_test_run ();
}

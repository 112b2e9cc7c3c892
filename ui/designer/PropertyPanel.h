#pragma once
// Edits the selected element's fields (party, host, role) or, with nothing selected, the
// topology's name and training settings. Each change comes out as an edit request carrying the
// new topology and a merge key, so that typing into one field is one undo step.
#include "TopologyEdits.h"

#include <QWidget>
#include <functional>

class QFormLayout;
class QScrollArea;

namespace hips {

class PropertyPanel : public QWidget {
    Q_OBJECT
public:
    explicit PropertyPanel(QWidget* parent = nullptr);

    // Shows the fields of `selection` (its first element) for `topology`; rebuilds the form
    // only when the selection changes, else refreshes the values in place.
    void show(const Topology& topology, const QList<ElementRef>& selection);
    void focusFirstField();  // keyboard focus to the shown element's first field, its text selected
    QWidget* field(const QString& name) const;  // by object name, e.g. "rounds" (tests)
    const ElementRef& element() const { return m_element; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

Q_SIGNALS:
    void editRequested(const QString& text, const Topology& after, const QString& mergeKey);
    void refused(const QString& why);

private:
    struct Binding {
        QWidget* widget;
        std::function<QVariant(const Topology&)> get;
        std::function<QString(Topology&, const QVariant&)> set;  // returns why not, or empty
    };
    void rebuild();
    void refresh();
    void markIgnoredSettings();
    QString focusedField() const;  // the object name of the field with the keyboard focus, if any
    void addText(const QString& name, const QString& label, std::function<QString(const Topology&)> get,
                 std::function<QString(Topology&, const QString&)> set);
    void addInt(const QString& name, const QString& label, int lo, int hi, std::function<int(const Topology&)> get,
                std::function<void(Topology&, int)> set);
    // An edit that may be refused: `set` returns why, or nothing.
    void addCheckedInt(const QString& name, const QString& label, int lo, int hi, std::function<int(const Topology&)> get,
                       std::function<QString(Topology&, int)> set);
    void addDouble(const QString& name, const QString& label, double lo, double hi, int decimals,
                   std::function<double(const Topology&)> get, std::function<void(Topology&, double)> set);
    void addChoice(const QString& name, const QString& label, const QStringList& choices, std::function<QString(const Topology&)> get,
                   std::function<void(Topology&, const QString&)> set);
    void addBool(const QString& name, const QString& label, std::function<bool(const Topology&)> get,
                 std::function<void(Topology&, bool)> set);
    void addStandbyHostChoice(const ElementRef& e);
    void addHostChoice(const QString& label, std::function<QString(const Topology&)> get,
                       std::function<void(Topology&, const QString&)> set);
    void commit(const Binding& b, const QVariant& value, const QString& label);
    void scrollUnlessFocused(QWidget* field);
    void buildTraining();
    void addStrategies();
    void addPrivacy();
    void addSecureAggregation();
    void buildParty();
    // PropertyPanelData.cpp: data sources, the model and its input.
    using SourceView = std::function<std::optional<DataSource>(const Topology&)>;
    using SourceEdit = std::function<std::optional<DataSource>*(Topology&)>;
    void addDataSource(const QString& prefix, const QString& noneText, SourceView view, SourceEdit edit);
    void addPartyTransport(const QString* partyId);
    void addPartyLauncher(const QString* partyId);
    void addPartyData(const QString* id);
    void addDataCheck(const QString& partyId);
    // A check that reads a file off the GUI thread (Check data, Check model): `start` gives, on a
    // click, the text to show while it runs and the work, which returns the answer to show.
    struct Check {
        QString reading;
        std::function<QString()> work;
    };
    void addCheck(const QString& name, const QString& button, const QString& idle, std::function<Check()> start);
    void addModelAndInput();
    static QString dataShape(const Topology& t, const ElementRef& e);  // what changes which data fields show
    void buildHost();
    void buildRole();

    Topology m_topology;
    ElementRef m_element;
    QScrollArea* m_scroll = nullptr;
    QFormLayout* m_form = nullptr;
    QWidget* m_body = nullptr;
    QList<Binding> m_bindings;
    QString m_strategies;  // the mode and rule whose parameter fields are shown
};

}  // namespace hips
